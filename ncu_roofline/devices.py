"""Built-in peak figures of common NVIDIA GPUs: the fallback when a report lacks its own peak metrics.

Data, not code: one frozen ``DeviceSpec`` per GPU; every figure is a ``Figure(value, source)`` in base SI
units (FLOP/s, byte/s, Hz) whose source names the NVIDIA document (title and URL) it comes from, or says how
it is derived and from what ("derived: ..."), or that it was measured ("ncu ...") or comes from a third party
("third-party ..."). A figure that is neither published nor derivable from published numbers is ``None`` (and
``DeviceSpec.notes`` says why), never a guess.

The figure names are the columns of the peaks frame (``ncu_roofline.device.FIGURES``), which are also the keys
``--peak`` accepts, so ``ncu-roofline devices NAME`` prints exactly what a user can override.

Conventions:

* Tensor figures are **dense** (no 2:4 sparsity). Where a datasheet prints only the sparse figure (marked
  "with sparsity"), the dense one is half of it, as the datasheets' footnotes state.
* GeForce tensor figures are those **with FP32 accumulate** (the mixed-precision training case); GeForce cards
  run FP16 accumulate at twice that rate (the whitepapers' appendices print both).
* NVIDIA's tensor figures for Hopper assume a lower clock than its CUDA-core figures (H100 SXM: 989.4 TFLOPS
  BF16 = 132 SMs x 4096 FLOP/clk x 1.83 GHz, while 67 TFLOPS FP32 needs 1.98 GHz). ncu's own roofs use the
  measured SM clock, so report-derived tensor peaks are up to 1.98/1.83 = 8 % above the datasheet's.
* ``fp16_flops`` is the non-tensor (HFMA2) rate, the roof of ncu's half-precision chart.
* ``sm_clock_hz`` is the boost clock, the clock every datasheet FLOP figure assumes.
* ``l1_bytes_per_s`` = L1 load bandwidth per SM per clock x SMs x boost clock. ncu's L1 roof is
  ``l1tex__lsu_writeback_active_mem_lgds.sum.peak_sustained`` x 128 B x L1 clock, i.e. 128 B/clk per SM (the
  H200 sample: peak_sustained = 132 = SM count); Turing's L1 is 64 B/clk/SM; Pascal's is not given.
* ``l2_bytes_per_s``: NVIDIA publishes L2 bandwidth only for V100 and A100 (in bytes per clock, A100
  whitepaper); the H200 figure is *measured*: ncu's own ``lts__lts2xbar_cycles_active.sum.peak_sustained``
  x 32 B x L2 clock from the H200 samples. Others are ``None``.
* ``dram_bytes_per_s`` of GeForce cards = memory data rate x bus width / 8 (the product pages give both).

Identification (``ncu_roofline.device.identify``) uses ``name``/``aliases`` (as ncu's
``device__attribute_display_name`` and nvidia-smi print them), ``cc``, ``sm_count`` and ``dram_bytes_per_s``
(a report's memory clock x 2 x bus width / 8 is the DRAM bandwidth). ``family``: the model a bare name means
(``--device a100``); the first member of a family in ``DEVICES`` is the one a bare family name picks.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Figure:
    """One peak figure in base SI units and where it comes from."""

    value: float
    source: str


@dataclass(frozen=True, kw_only=True)
class DeviceSpec:
    """A GPU's peak figures (see the module docstring for the conventions)."""

    name: str
    aliases: tuple[str, ...] = ()  # device__attribute_display_name / nvidia-smi spellings
    family: str
    cc: str
    memory: str
    sm_count: Figure | None
    sm_clock_hz: Figure | None
    dram_bytes_per_s: Figure
    l2_bytes_per_s: Figure | None = None
    l1_bytes_per_s: Figure | None = None
    fp64_flops: Figure | None = None
    fp32_flops: Figure | None = None
    fp16_flops: Figure | None = None
    tensor_fp64_flops: Figure | None = None
    tensor_tf32_flops: Figure | None = None
    tensor_bf16_flops: Figure | None = None
    tensor_fp16_flops: Figure | None = None
    tensor_fp8_flops: Figure | None = None
    tensor_int8_flops: Figure | None = None  # integer operations per second
    notes: str = ""
    tensor_cores: bool = True  # False for a chip without them though its CC has them (TU116/TU117)

    @property
    def hbm(self) -> bool | None:
        """Whether the GPU's DRAM is HBM (``memory`` names HBM2/HBM3...), not GDDR or LPDDR: what the DRAM
        limiter is called on its reports. None where ``memory`` names neither."""
        if "HBM" in self.memory:
            return True
        if "GDDR" in self.memory or "LPDDR" in self.memory:
            return False
        return None

    def figures(self) -> dict[str, Figure | None]:
        """Every figure by name: the peaks frame column (and ``--peak`` key) it fills."""
        return {
            "sm_count": self.sm_count,
            "sm_clock_hz": self.sm_clock_hz,
            "dram_bytes_per_s": self.dram_bytes_per_s,
            "l2_bytes_per_s": self.l2_bytes_per_s,
            "l1_bytes_per_s": self.l1_bytes_per_s,
            "fp64_flops": self.fp64_flops,
            "fp32_flops": self.fp32_flops,
            "fp16_flops": self.fp16_flops,
            "tensor_fp64_flops": self.tensor_fp64_flops,
            "tensor_tf32_flops": self.tensor_tf32_flops,
            "tensor_bf16_flops": self.tensor_bf16_flops,
            "tensor_fp16_flops": self.tensor_fp16_flops,
            "tensor_fp8_flops": self.tensor_fp8_flops,
            "tensor_int8_flops": self.tensor_int8_flops,
        }


T = 1e12
G = 1e9
M = 1e6

# ---- documents ---------------------------------------------------------------------------------------
V100_DS = (
    "NVIDIA Tesla V100 GPU Accelerator datasheet, "
    "https://images.nvidia.com/content/technologies/volta/pdf/tesla-volta-v100-datasheet-letter-fnl-web.pdf"
)
V100S_DS = (
    "NVIDIA V100 Tensor Core GPU datasheet (V100S PCIe column), "
    "https://images.nvidia.com/content/technologies/volta/pdf/volta-v100-datasheet-update-us-1165301-r5.pdf"
)
VOLTA_WP = (
    "NVIDIA Tesla V100 GPU Architecture whitepaper (WP-08608-001), Table 1, "
    "https://images.nvidia.com/content/volta-architecture/pdf/volta-architecture-whitepaper.pdf"
)
T4_DS = (
    "NVIDIA T4 Tensor Core GPU datasheet, "
    "https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/tesla-t4/t4-tensor-core-datasheet-951643.pdf"
)
TURING_WP = (
    "NVIDIA Turing GPU Architecture whitepaper (WP-09183-001), "
    "https://images.nvidia.com/aem-dam/en-zz/Solutions/design-visualization/technologies/"
    "turing-architecture/NVIDIA-Turing-Architecture-Whitepaper.pdf"
)
CUDA_GUIDE = (
    "CUDA C++ Programming Guide, Arithmetic Instructions, throughput table (results per clock per SM), "
    "https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#arithmetic-instructions"
)
JIA_VOLTA = (
    "Jia, Maggioni, Staiger, Scarpazza, 'Dissecting the NVIDIA Volta GPU Architecture via "
    "Microbenchmarking', arXiv:1804.06826 (theoretical L1 load bandwidth 128 B/clk/SM)"
)
JIA_TURING = (
    "Jia, Maggioni, Smith, Scarpazza, 'Dissecting the NVidia Turing T4 GPU via Microbenchmarking', "
    "arXiv:1903.07486 (theoretical L1 load bandwidth 64 B/clk/SM)"
)
A100_WP = (
    "NVIDIA A100 Tensor Core GPU Architecture whitepaper V1.0, Table 1 and 'A100 L2 Cache', "
    "https://images.nvidia.com/aem-dam/en-zz/Solutions/data-center/nvidia-ampere-architecture-whitepaper.pdf"
)
A100_DS = (
    "NVIDIA A100 Tensor Core GPU datasheet, "
    "https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/"
    "nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf"
)
A30_DS = (
    "NVIDIA A30 Tensor Core GPU datasheet, "
    "https://www.nvidia.com/content/dam/en-zz/Solutions/data-center/products/a30-gpu/pdf/a30-datasheet.pdf"
)
GA102_WP = (
    "NVIDIA Ampere GA102 GPU Architecture whitepaper V2.0, Appendix A (FP16 non-tensor = FP32 rate, FP64 = "
    "1/64 FP32 on GA10x), https://www.nvidia.com/content/PDF/nvidia-ampere-ga-102-gpu-architecture-whitepaper-v2.pdf"
)
A10_DS = (
    "NVIDIA A10 Tensor Core GPU datasheet, "
    "https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a10/pdf/datasheet-new/nvidia-a10-datasheet.pdf"
)
A40_DS = "NVIDIA A40 datasheet, https://images.nvidia.com/content/Solutions/data-center/a40/nvidia-a40-datasheet.pdf"
A6000_PAGE = (
    "NVIDIA RTX A6000 product page, specifications, https://www.nvidia.com/en-us/design-visualization/rtx-a6000/"
)
ADA_WP = (
    "NVIDIA Ada GPU Architecture whitepaper V2.01, Appendix A (GeForce RTX 4090; FP16 non-tensor = FP32 "
    "rate, FP64 = 1/64 FP32 on AD10x), "
    "https://images.nvidia.com/aem-dam/Solutions/geforce/ada/nvidia-ada-gpu-architecture.pdf"
)
L4_DS = "NVIDIA L4 Tensor Core GPU datasheet, https://resources.nvidia.com/en-us-data-center-overview/l4-gpu-datasheet"
L40_DS = "NVIDIA L40 GPU datasheet, https://images.nvidia.com/content/Solutions/data-center/vgpu-L40-datasheet.pdf"
L40S_DS = "NVIDIA L40S GPU datasheet, https://resources.nvidia.com/en-us-l40s/l40s-datasheet-28413"
RTX6000ADA_PAGE = (
    "NVIDIA RTX 6000 Ada Generation product page, specifications, "
    "https://www.nvidia.com/en-us/design-visualization/rtx-6000/"
)
H100_DS = (
    "NVIDIA H100 Tensor Core GPU datasheet, "
    "https://resources.nvidia.com/en-us-tensor-core/nvidia-tensor-core-gpu-datasheet"
)
HOPPER_WP = (
    "NVIDIA H100 Tensor Core GPU Architecture whitepaper V1.04, Table 3 (H100 SXM5 FP16 non-tensor "
    "133.8 TFLOPS = 2 x FP32), https://resources.nvidia.com/en-us-tensor-core/gtc22-whitepaper-hopper"
)
H200_DS = (
    "NVIDIA H200 Tensor Core GPU datasheet, H200 SXM column, "
    "https://nvdam.widen.net/s/nb5zzzsjdf/hpc-datasheet-sc23-h200-datasheet-3002446"
)
H200_NCU = "ncu 2025.3.1 on an NVIDIA H200 (CC 9.0), shared/ncu-samples/h200-micro/micro_full.raw.csv"
GH200_DS = (
    "NVIDIA GH200 Grace Hopper Superchip datasheet, https://resources.nvidia.com/en-us-grace-cpu/grace-hopper-superchip"
)
H20_3RD = (
    "third-party (NVIDIA publishes no H20 datasheet): figures as reported by the press, e.g. "
    "https://willitrunai.com/es/gpus/h20-96gb (96 GB HBM3, 4.0 TB/s, FP16 148 TFLOPS dense, INT8 296 TOPS)"
)
HGX_PAGE = (
    "NVIDIA HGX platform page, technical specifications, HGX B200 'individual Blackwell GPU' column "
    "(tensor figures with sparsity; dense is one-half), https://www.nvidia.com/en-us/data-center/hgx/"
)
GB200_PAGE = (
    "NVIDIA GB200 NVL72 page, specifications, GB200 Grace Blackwell Superchip column (two Blackwell GPUs: one "
    "GPU is one-half; tensor figures with sparsity, dense is one-half), "
    "https://www.nvidia.com/en-us/data-center/gb200-nvl72/"
)
B200_3RD = (
    "third-party (not published by NVIDIA): hmc-tech.com B200 specifications, "
    "https://hmc-tech.com/gpus/nvidia-b200-vs-nvidia-gb200"
)
NCU_L1 = (
    "ncu stock roofline sections: L1 roof = l1tex__lsu_writeback_active_mem_lg[ds].sum.peak_sustained "
    "x 128 B x L1 clock, one writeback cycle per SM per clock (H200 sample: peak_sustained = 132 = SMs)"
)
GEFORCE = "https://www.nvidia.com/en-us/geforce/graphics-cards/"


def _dense(sparse: float, doc: str) -> Figure:
    return Figure(sparse / 2, f"{doc} ({sparse / T:g} TFLOPS/TOPS with sparsity; dense = one-half)")


def _l1(bytes_per_clk_sm: float, sms: int, clock_hz: float, doc: str) -> Figure:
    return Figure(
        bytes_per_clk_sm * sms * clock_hz,
        f"derived: {bytes_per_clk_sm:g} B/clk/SM x {sms} SMs x {clock_hz / G:.4g} GHz boost; per-SM width from {doc}",
    )


def _clock_from_fp32(fp32: float, lanes: int, doc: str) -> Figure:
    return Figure(
        fp32 / (2 * lanes),
        f"derived: FP32 {fp32 / T:g} TFLOPS / (2 FLOP x {lanes:,} FP32 lanes), both from {doc}",
    )


def _ratio(base: Figure, ratio: float, what: str, doc: str) -> Figure:
    """A figure that is a fixed ratio of another (e.g. FP64 = 1/64 FP32 on GA10x)."""
    return Figure(base.value * ratio, f"derived: {what} of {base.value / T:.4g} TFLOPS ({doc})")


# ---- Volta ------------------------------------------------------------------------------------------------
_V100_CLOCK = 1.530 * G


def _v100_sxm2(mem: int) -> DeviceSpec:
    return DeviceSpec(
        name=f"Tesla V100-SXM2-{mem}GB",
        aliases=(f"V100-SXM2-{mem}GB", f"V100 SXM2 {mem}GB"),
        family="V100",
        memory=f"{mem} GB HBM2",
        cc="7.0",
        sm_count=Figure(80, f"5,120 CUDA cores / 64 FP32 lanes per SM: {VOLTA_WP}"),
        sm_clock_hz=Figure(_V100_CLOCK, f"GPU Boost Clock 1530 MHz: {VOLTA_WP}"),
        dram_bytes_per_s=Figure(900 * G, f"HBM2 900 GB/s, V100 SXM2 column: {V100_DS}"),
        l2_bytes_per_s=Figure(
            2048 * _V100_CLOCK,
            f"derived: 2048 B/clk L2 read bandwidth (V100, as given in {A100_WP}) x 1.53 GHz boost",
        ),
        l1_bytes_per_s=_l1(128, 80, _V100_CLOCK, JIA_VOLTA),
        fp64_flops=Figure(7.8 * T, f"double precision 7.8 TFLOPS, V100 SXM2 column: {V100_DS}"),
        fp32_flops=Figure(15.7 * T, f"single precision 15.7 TFLOPS, V100 SXM2 column: {V100_DS}"),
        fp16_flops=Figure(
            2 * 15.7 * T, f"derived: 2 x FP32 (CC 7.0: 128 fp16 vs 64 fp32 results/clk/SM), {CUDA_GUIDE}"
        ),
        tensor_fp16_flops=Figure(125 * T, f"tensor performance 125 TFLOPS, V100 SXM2 column: {V100_DS}"),
        notes="Volta tensor cores run FP16 only (no TF32/BF16/FP8/INT8/FP64 tensor paths).",
    )


def _v100_pcie(mem: int) -> DeviceSpec:
    clock = _clock_from_fp32(14 * T, 5120, f"V100 PCIe column of {V100_DS}")
    return DeviceSpec(
        name=f"Tesla V100-PCIE-{mem}GB",
        aliases=(f"V100-PCIE-{mem}GB", f"V100 PCIe {mem}GB"),
        family="V100",
        memory=f"{mem} GB HBM2",
        cc="7.0",
        sm_count=Figure(80, f"5,120 CUDA cores / 64 FP32 lanes per SM: {VOLTA_WP}"),
        sm_clock_hz=clock,
        dram_bytes_per_s=Figure(900 * G, f"HBM2 900 GB/s, V100 PCIe column: {V100_DS}"),
        l2_bytes_per_s=Figure(
            2048 * clock.value,
            f"derived: 2048 B/clk L2 read bandwidth (V100, as given in {A100_WP}) x {clock.value / G:.4g} GHz",
        ),
        l1_bytes_per_s=_l1(128, 80, clock.value, JIA_VOLTA),
        fp64_flops=Figure(7 * T, f"double precision 7 TFLOPS, V100 PCIe column: {V100_DS}"),
        fp32_flops=Figure(14 * T, f"single precision 14 TFLOPS, V100 PCIe column: {V100_DS}"),
        fp16_flops=Figure(2 * 14 * T, f"derived: 2 x FP32 (CC 7.0: 128 fp16 vs 64 fp32 results/clk/SM), {CUDA_GUIDE}"),
        tensor_fp16_flops=Figure(112 * T, f"tensor performance 112 TFLOPS, V100 PCIe column: {V100_DS}"),
        notes="Volta tensor cores run FP16 only (no TF32/BF16/FP8/INT8/FP64 tensor paths).",
    )


_V100S_CLOCK = _clock_from_fp32(16.4 * T, 5120, V100S_DS)
V100S = DeviceSpec(
    name="Tesla V100S-PCIE-32GB",
    aliases=("V100S-PCIE-32GB", "V100S PCIe", "V100S"),
    family="V100S",
    memory="32 GB HBM2",
    cc="7.0",
    sm_count=Figure(80, f"5,120 CUDA cores / 64 FP32 lanes per SM: {V100S_DS}"),
    sm_clock_hz=_V100S_CLOCK,
    dram_bytes_per_s=Figure(1134 * G, f"GPU memory bandwidth 1,134 GB/s: {V100S_DS}"),
    l2_bytes_per_s=Figure(
        2048 * _V100S_CLOCK.value,
        f"derived: 2048 B/clk L2 read bandwidth (V100, as given in {A100_WP}) x {_V100S_CLOCK.value / G:.4g} GHz",
    ),
    l1_bytes_per_s=_l1(128, 80, _V100S_CLOCK.value, JIA_VOLTA),
    fp64_flops=Figure(8.2 * T, f"double precision 8.2 TFLOPS: {V100S_DS}"),
    fp32_flops=Figure(16.4 * T, f"single precision 16.4 TFLOPS: {V100S_DS}"),
    fp16_flops=Figure(2 * 16.4 * T, f"derived: 2 x FP32 (CC 7.0: 128 fp16 vs 64 fp32 results/clk/SM), {CUDA_GUIDE}"),
    tensor_fp16_flops=Figure(130 * T, f"tensor performance 130 TFLOPS: {V100S_DS}"),
    notes="Volta tensor cores run FP16 only.",
)

# ---- Turing and Pascal ----------------------------------------------------------------------------------
_T4_CLOCK = 1.590 * G
T4 = DeviceSpec(
    name="Tesla T4",
    aliases=("T4", "NVIDIA T4", "Tesla T4"),
    family="T4",
    cc="7.5",
    sm_count=Figure(40, f"2,560 CUDA cores / 64 FP32 lanes per SM: {T4_DS}"),
    sm_clock_hz=Figure(_T4_CLOCK, f"GPU Boost Clock 1590 MHz, Appendix A (Tesla T4): {TURING_WP}"),
    memory="16 GB GDDR6",
    dram_bytes_per_s=Figure(320 * G, f"GDDR6 320+ GB/s: {T4_DS}"),
    l1_bytes_per_s=_l1(64, 40, _T4_CLOCK, JIA_TURING),
    fp64_flops=Figure(
        8.1 * T / 32,
        f"derived: 1/32 of FP32 8.1 TFLOPS (CC 7.5: 2 fp64 vs 64 fp32 results/clk/SM, {CUDA_GUIDE}); FP32 from {T4_DS}",
    ),
    fp32_flops=Figure(8.1 * T, f"single precision 8.1 TFLOPS: {T4_DS}"),
    fp16_flops=Figure(2 * 8.1 * T, f"derived: 2 x FP32 (CC 7.5: 128 fp16 vs 64 fp32 results/clk/SM), {CUDA_GUIDE}"),
    tensor_fp16_flops=Figure(65 * T, f"mixed precision (FP16/FP32) 65 TFLOPS: {T4_DS}"),
    tensor_int8_flops=Figure(130 * T, f"INT8 130 TOPS: {T4_DS}"),
    notes="Turing: no TF32/BF16/FP8/FP64 tensor paths; L2 bandwidth not published.",
)


def _geforce(
    *,
    name: str,
    family: str,
    cc: str,
    sms: int,
    cores: int,
    boost_mhz: float,
    gbps: float,
    bus_bits: int,
    memory: str,
    page: str,
    aliases: tuple[str, ...] = (),
    tensor: dict[str, Figure] | None = None,
    fp16_per_fp32: float | None = 1.0,
    fp64_per_fp32: float = 1 / 64,
    l1_bytes_per_clk: float | None = 128,
    notes: str = "",
    tensor_cores: bool = True,
) -> DeviceSpec:
    """A GeForce card from its product page: SMs, CUDA cores, boost clock, memory data rate and bus width.
    FP32 = 2 FLOP x cores x boost; the non-tensor FP16 and FP64 rates are the architecture's ratios to FP32."""
    lanes = cores // sms
    clock = boost_mhz * M
    fp32 = Figure(2 * cores * clock, f"derived: 2 FLOP x {cores:,} CUDA cores x {boost_mhz:g} MHz boost clock: {page}")
    arch_doc = {"6.1": CUDA_GUIDE, "7.5": CUDA_GUIDE, "8.6": GA102_WP, "8.9": ADA_WP}.get(cc, CUDA_GUIDE)
    t = tensor or {}
    return DeviceSpec(
        name=name,
        aliases=aliases,
        family=family,
        cc=cc,
        memory=memory,
        sm_count=Figure(sms, f"{cores:,} CUDA cores / {lanes} FP32 lanes per SM: {page}"),
        sm_clock_hz=Figure(clock, f"boost clock {boost_mhz:g} MHz: {page}"),
        dram_bytes_per_s=Figure(
            gbps * bus_bits / 8 * G, f"derived: {gbps:g} Gbps memory speed x {bus_bits}-bit interface / 8: {page}"
        ),
        l1_bytes_per_s=None
        if l1_bytes_per_clk is None
        else _l1(l1_bytes_per_clk, sms, clock, JIA_TURING if l1_bytes_per_clk == 64 else NCU_L1),
        fp64_flops=_ratio(fp32, fp64_per_fp32, f"1/{round(1 / fp64_per_fp32)} FP32", arch_doc),
        fp32_flops=fp32,
        fp16_flops=None
        if fp16_per_fp32 is None
        else _ratio(fp32, fp16_per_fp32, f"{fp16_per_fp32:g} x FP32", arch_doc),
        tensor_tf32_flops=t.get("tf32"),
        tensor_bf16_flops=t.get("bf16"),
        tensor_fp16_flops=t.get("fp16"),
        tensor_fp8_flops=t.get("fp8"),
        tensor_int8_flops=t.get("int8"),
        notes=notes,
        tensor_cores=tensor_cores,
    )


def _ratios_of(fp32: float, ratios: dict[str, float], doc: str) -> dict[str, Figure]:
    """Tensor figures derived from FP32 with an architecture's published ratios (``doc``: where they are)."""
    return {
        k: Figure(fp32 * r, f"derived: {r:g} x FP32 {fp32 / T:.4g} TFLOPS, the ratio of {doc}")
        for k, r in ratios.items()
    }


#: Turing GeForce tensor rates per FP32 rate: the RTX 2080 Ti FE column of the Turing whitepaper (FP32 14.2
#: TFLOPS; FP16 tensor with FP32 accumulate 56.9 TFLOPS; INT8 227.7 TOPS).
_TURING_TENSOR = {"fp16": 4.0, "int8": 16.0}
#: GA10x GeForce tensor rates per FP32 rate (GA102 whitepaper, RTX 3090 column: FP32 35.6, TF32 35.6, BF16 and
#: FP16 with FP32 accumulate 71, INT8 284 dense).
_GA10X_TENSOR = {"tf32": 1.0, "bf16": 2.0, "fp16": 2.0, "int8": 8.0}
#: AD10x GeForce tensor rates per FP32 rate (Ada whitepaper, RTX 4090 column: FP32 82.6, TF32 82.6, FP16/BF16
#: with FP32 accumulate 165.2, FP8 with FP32 accumulate 330.3, INT8 660.6 dense).
_ADA_TENSOR = {"tf32": 1.0, "bf16": 2.0, "fp16": 2.0, "fp8": 4.0, "int8": 8.0}

RTX2080TI = _geforce(
    name="NVIDIA GeForce RTX 2080 Ti",
    family="RTX 2080 Ti",
    cc="7.5",
    sms=68,
    cores=4352,
    boost_mhz=1635,
    gbps=14,
    bus_bits=352,
    memory="11 GB GDDR6",
    page=f"Founders Edition column (boost 1635 MHz, 14 Gbps, 352-bit), Appendix A of {TURING_WP}",
    fp16_per_fp32=2.0,
    fp64_per_fp32=1 / 32,
    l1_bytes_per_clk=64,
    tensor={
        "fp16": Figure(56.9 * T, f"peak FP16 Tensor TFLOPS with FP32 accumulate 56.9 (FE): {TURING_WP}"),
        "int8": Figure(227.7 * T, f"peak INT8 Tensor TOPS 227.7 (FE): {TURING_WP}"),
    },
    notes="Founders Edition clocks (reference cards boost to 1545 MHz); Turing: no TF32/BF16/FP8 tensor paths.",
)
RTX2060 = _geforce(
    name="NVIDIA GeForce RTX 2060",
    family="RTX 2060",
    cc="7.5",
    sms=30,
    cores=1920,
    boost_mhz=1680,
    gbps=14,
    bus_bits=192,
    memory="6 GB GDDR6",
    page=f"GeForce RTX 2060 specifications, {GEFORCE}rtx-2060/",
    fp16_per_fp32=2.0,
    fp64_per_fp32=1 / 32,
    l1_bytes_per_clk=64,
    tensor=_ratios_of(2 * 1920 * 1680 * M, _TURING_TENSOR, f"the RTX 2080 Ti FE column of {TURING_WP}"),
    notes="Turing: no TF32/BF16/FP8 tensor paths; L2 bandwidth not published.",
)
GTX1650 = _geforce(
    name="NVIDIA GeForce GTX 1650",
    family="GTX 1650",
    cc="7.5",
    sms=14,
    cores=896,
    boost_mhz=1665,
    gbps=8,
    bus_bits=128,
    memory="4 GB GDDR5",
    page=f"GeForce GTX 1650 specifications (GDDR5 version), {GEFORCE}gtx-1650/",
    fp16_per_fp32=2.0,
    fp64_per_fp32=1 / 32,
    l1_bytes_per_clk=64,
    notes="TU117: no tensor cores; L2 bandwidth not published.",
    tensor_cores=False,
)
GTX1080 = _geforce(
    name="NVIDIA GeForce GTX 1080",
    family="GTX 1080",
    cc="6.1",
    sms=20,
    cores=2560,
    boost_mhz=1733,
    gbps=10,
    bus_bits=256,
    memory="8 GB GDDR5X",
    page="GeForce GTX 1080 specifications, https://www.nvidia.com/en-gb/geforce/graphics-cards/geforce-gtx-1080/specifications/",
    fp16_per_fp32=1 / 64,  # CC 6.1: 2 fp16 vs 128 fp32 results/clk/SM
    fp64_per_fp32=1 / 32,  # CC 6.1: 4 fp64 vs 128 fp32
    l1_bytes_per_clk=None,
    notes="Pascal GP104: no tensor cores, FP16 at 1/64 of FP32 (CUDA guide); L1 and L2 bandwidth not published.",
    tensor_cores=False,
)

# ---- Ampere -------------------------------------------------------------------------------------------------
_A100_CLOCK = 1.410 * G


def _a100(form: str, mem: int, bw: int, name: str, aliases: tuple[str, ...], bw_doc: str) -> DeviceSpec:
    return DeviceSpec(
        name=name,
        aliases=aliases,
        family="A100",
        cc="8.0",
        sm_count=Figure(108, f"108 SMs: {A100_WP}"),
        sm_clock_hz=Figure(_A100_CLOCK, f"GPU Boost Clock 1410 MHz: {A100_WP}"),
        memory=f"{mem} GB HBM2{'e' if mem == 80 else ''}, {form}",
        dram_bytes_per_s=Figure(bw * G, f"GPU memory bandwidth {bw:,} GB/s: {bw_doc}"),
        l2_bytes_per_s=Figure(5120 * _A100_CLOCK, f"derived: 5120 B/clk L2 read bandwidth x 1.41 GHz boost: {A100_WP}"),
        l1_bytes_per_s=_l1(128, 108, _A100_CLOCK, NCU_L1),
        fp64_flops=Figure(9.7 * T, f"FP64 9.7 TFLOPS: {A100_DS}"),
        fp32_flops=Figure(19.5 * T, f"FP32 19.5 TFLOPS: {A100_DS}"),
        fp16_flops=Figure(78 * T, f"peak FP16 (non-tensor) 78 TFLOPS: {A100_WP}"),
        tensor_fp64_flops=Figure(19.5 * T, f"FP64 Tensor Core 19.5 TFLOPS: {A100_DS}"),
        tensor_tf32_flops=_dense(312 * T, f"Tensor Float 32 156 | 312* TFLOPS: {A100_DS}"),
        tensor_bf16_flops=_dense(624 * T, f"BFLOAT16 Tensor Core 312 | 624* TFLOPS: {A100_DS}"),
        tensor_fp16_flops=_dense(624 * T, f"FP16 Tensor Core 312 | 624* TFLOPS: {A100_DS}"),
        tensor_int8_flops=_dense(1248 * T, f"INT8 Tensor Core 624 | 1248* TOPS: {A100_DS}"),
        notes="Ampere GA100: no FP8 tensor path. The PCIe forms run the same clocks (lower power limit).",
    )


_A30_CLOCK = _clock_from_fp32(10.3 * T, 3584, A30_DS)
A30 = DeviceSpec(
    name="NVIDIA A30",
    aliases=("A30", "NVIDIA A30 24GB"),
    family="A30",
    cc="8.0",
    memory="24 GB HBM2",
    sm_count=Figure(56, f"3,584 CUDA cores / 64 FP32 lanes per SM (GA100): {A30_DS}; {A100_WP}"),
    sm_clock_hz=_A30_CLOCK,
    dram_bytes_per_s=Figure(933 * G, f"GPU memory bandwidth 933 GB/s: {A30_DS}"),
    l1_bytes_per_s=_l1(128, 56, _A30_CLOCK.value, NCU_L1),
    fp64_flops=Figure(5.2 * T, f"FP64 5.2 TFLOPS: {A30_DS}"),
    fp32_flops=Figure(10.3 * T, f"FP32 10.3 TFLOPS: {A30_DS}"),
    fp16_flops=Figure(4 * 10.3 * T, f"derived: 4 x FP32, the GA100 SM's ratio (A100: 78 vs 19.5 TFLOPS, {A100_WP})"),
    tensor_fp64_flops=Figure(10.3 * T, f"FP64 Tensor Core 10.3 TFLOPS: {A30_DS}"),
    tensor_tf32_flops=_dense(165 * T, f"TF32 Tensor Core 82 | 165* TFLOPS: {A30_DS}"),
    tensor_bf16_flops=_dense(330 * T, f"BFLOAT16 Tensor Core 165 | 330* TFLOPS: {A30_DS}"),
    tensor_fp16_flops=_dense(330 * T, f"FP16 Tensor Core 165 | 330* TFLOPS: {A30_DS}"),
    tensor_int8_flops=_dense(661 * T, f"INT8 Tensor Core 330 | 661* TOPS: {A30_DS}"),
    notes="L2 bandwidth not published.",
)

_A10_CLOCK = 31.2 * T / (2 * 9216)
A10 = DeviceSpec(
    name="NVIDIA A10",
    aliases=("A10",),
    family="A10",
    cc="8.6",
    sm_count=Figure(72, f"9,216 CUDA cores / 128 FP32 lanes per SM (GA10x): {A10_DS}; {GA102_WP}"),
    sm_clock_hz=_clock_from_fp32(31.2 * T, 9216, A10_DS),
    memory="24 GB GDDR6",
    dram_bytes_per_s=Figure(600 * G, f"GPU memory bandwidth 600 GB/s: {A10_DS}"),
    l1_bytes_per_s=_l1(128, 72, _A10_CLOCK, NCU_L1),
    fp64_flops=Figure(31.2 * T / 64, f"derived: 1/64 of FP32 31.2 TFLOPS ({GA102_WP}); FP32 from {A10_DS}"),
    fp32_flops=Figure(31.2 * T, f"FP32 31.2 TFLOPS: {A10_DS}"),
    fp16_flops=Figure(31.2 * T, f"derived: = FP32 31.2 TFLOPS ({GA102_WP})"),
    tensor_tf32_flops=_dense(125 * T, f"TF32 Tensor Core 62.5 | 125* TFLOPS: {A10_DS}"),
    tensor_bf16_flops=_dense(250 * T, f"BFLOAT16 Tensor Core 125 | 250* TFLOPS: {A10_DS}"),
    tensor_fp16_flops=_dense(250 * T, f"FP16 Tensor Core 125 | 250* TFLOPS: {A10_DS}"),
    tensor_int8_flops=_dense(500 * T, f"INT8 Tensor Core 250 | 500* TOPS: {A10_DS}"),
    notes="L2 bandwidth not published.",
)

_A40_CLOCK = _clock_from_fp32(37.4 * T, 10752, A40_DS)
A40 = DeviceSpec(
    name="NVIDIA A40",
    aliases=("A40",),
    family="A40",
    cc="8.6",
    memory="48 GB GDDR6",
    sm_count=Figure(84, f"10,752 CUDA cores / 128 FP32 lanes per SM (GA10x): {A40_DS}; {GA102_WP}"),
    sm_clock_hz=_A40_CLOCK,
    dram_bytes_per_s=Figure(696 * G, f"GPU memory bandwidth 696 GB/s: {A40_DS}"),
    l1_bytes_per_s=_l1(128, 84, _A40_CLOCK.value, NCU_L1),
    fp64_flops=Figure(37.4 * T / 64, f"derived: 1/64 of FP32 37.4 TFLOPS ({GA102_WP}); FP32 from {A40_DS}"),
    fp32_flops=Figure(37.4 * T, f"FP32 37.4 TFLOPS: {A40_DS}"),
    fp16_flops=Figure(37.4 * T, f"derived: = FP32 37.4 TFLOPS ({GA102_WP})"),
    tensor_tf32_flops=_dense(149.6 * T, f"TF32 Tensor Core 74.8 | 149.6* TFLOPS: {A40_DS}"),
    tensor_bf16_flops=_dense(299.4 * T, f"BFLOAT16 Tensor Core 149.7 | 299.4* TFLOPS: {A40_DS}"),
    tensor_fp16_flops=_dense(299.4 * T, f"FP16 Tensor Core 149.7 | 299.4* TFLOPS: {A40_DS}"),
    tensor_int8_flops=_dense(598.6 * T, f"INT8 Tensor Core 299.3 | 598.6* TOPS: {A40_DS}"),
    notes="L2 bandwidth not published.",
)

_A6000_CLOCK = _clock_from_fp32(38.7 * T, 10752, A6000_PAGE)
RTXA6000 = DeviceSpec(
    name="NVIDIA RTX A6000",
    aliases=("RTX A6000", "A6000"),
    family="RTX A6000",
    cc="8.6",
    memory="48 GB GDDR6",
    sm_count=Figure(84, f"10,752 CUDA cores / 128 FP32 lanes per SM (GA10x): {A6000_PAGE}; {GA102_WP}"),
    sm_clock_hz=_A6000_CLOCK,
    dram_bytes_per_s=Figure(768 * G, f"GPU memory bandwidth 768 GB/s: {A6000_PAGE}"),
    l1_bytes_per_s=_l1(128, 84, _A6000_CLOCK.value, NCU_L1),
    fp64_flops=Figure(38.7 * T / 64, f"derived: 1/64 of FP32 38.7 TFLOPS ({GA102_WP}); FP32 from {A6000_PAGE}"),
    fp32_flops=Figure(38.7 * T, f"single-precision performance 38.7 TFLOPS: {A6000_PAGE}"),
    fp16_flops=Figure(38.7 * T, f"derived: = FP32 38.7 TFLOPS ({GA102_WP})"),
    tensor_fp16_flops=_dense(309.7 * T, f"tensor performance 309.7* TFLOPS: {A6000_PAGE}"),
    notes="Only the sparse FP16 tensor figure is published; L2 bandwidth not published.",
)

RTX3090 = _geforce(
    name="NVIDIA GeForce RTX 3090",
    family="RTX 3090",
    cc="8.6",
    sms=82,
    cores=10496,
    boost_mhz=1695,
    gbps=19.5,
    bus_bits=384,
    memory="24 GB GDDR6X",
    page=f"GeForce RTX 3090 column, Appendix A of {GA102_WP}",
    tensor={
        "tf32": Figure(35.6 * T, f"peak TF32 Tensor TFLOPS 35.6 (dense), RTX 3090 column: {GA102_WP}"),
        "bf16": Figure(71 * T, f"peak BF16 Tensor TFLOPS with FP32 accumulate 71 (dense), RTX 3090: {GA102_WP}"),
        "fp16": Figure(71 * T, f"peak FP16 Tensor TFLOPS with FP32 accumulate 71 (dense), RTX 3090: {GA102_WP}"),
        "int8": Figure(284 * T, f"peak INT8 Tensor TOPS 284 (dense), RTX 3090 column: {GA102_WP}"),
    },
    notes="L2 bandwidth not published.",
)
RTX3080 = _geforce(
    name="NVIDIA GeForce RTX 3080",
    family="RTX 3080",
    cc="8.6",
    sms=68,
    cores=8704,
    boost_mhz=1710,
    gbps=19,
    bus_bits=320,
    memory="10 GB GDDR6X",
    page=f"GeForce RTX 3080 column, Appendix A of {GA102_WP}",
    tensor=_ratios_of(2 * 8704 * 1710 * M, _GA10X_TENSOR, f"the RTX 3090 column of {GA102_WP}"),
    notes="The 10 GB card (the 12 GB one has 70 SMs and a 384-bit bus); L2 bandwidth not published.",
)

# ---- Ada ------------------------------------------------------------------------------------------------------
_L4_CLOCK = 30.3 * T / (2 * 7424)
L4 = DeviceSpec(
    name="NVIDIA L4",
    aliases=("L4",),
    family="L4",
    cc="8.9",
    sm_count=Figure(58, f"7,424 CUDA cores / 128 FP32 lanes per SM (Ada): {ADA_WP}"),
    sm_clock_hz=_clock_from_fp32(30.3 * T, 7424, f"{L4_DS}; {ADA_WP}"),
    memory="24 GB GDDR6",
    dram_bytes_per_s=Figure(300 * G, f"GPU memory bandwidth 300 GB/s: {L4_DS}"),
    l1_bytes_per_s=_l1(128, 58, _L4_CLOCK, NCU_L1),
    fp64_flops=Figure(30.3 * T / 64, f"derived: 1/64 of FP32 30.3 TFLOPS ({ADA_WP}); FP32 from {L4_DS}"),
    fp32_flops=Figure(30.3 * T, f"FP32 30.3 TFLOPS: {L4_DS}"),
    fp16_flops=Figure(30.3 * T, f"derived: = FP32 30.3 TFLOPS ({ADA_WP})"),
    tensor_tf32_flops=_dense(120 * T, f"TF32 Tensor Core 120* TFLOPS: {L4_DS}"),
    tensor_bf16_flops=_dense(242 * T, f"BFLOAT16 Tensor Core 242* TFLOPS: {L4_DS}"),
    tensor_fp16_flops=_dense(242 * T, f"FP16 Tensor Core 242* TFLOPS: {L4_DS}"),
    tensor_fp8_flops=_dense(485 * T, f"FP8 Tensor Core 485* TFLOPS: {L4_DS}"),
    tensor_int8_flops=_dense(485 * T, f"INT8 Tensor Core 485* TOPS: {L4_DS}"),
    notes="L2 bandwidth not published.",
)

_L40_CLOCK = _clock_from_fp32(90.5 * T, 18176, L40_DS)
L40 = DeviceSpec(
    name="NVIDIA L40",
    aliases=("L40",),
    family="L40",
    cc="8.9",
    sm_count=Figure(142, f"18,176 CUDA cores / 128 FP32 lanes per SM (Ada): {L40_DS}"),
    sm_clock_hz=_L40_CLOCK,
    memory="48 GB GDDR6",
    dram_bytes_per_s=Figure(864 * G, f"GPU memory bandwidth 864 GB/s: {L40_DS}"),
    l1_bytes_per_s=_l1(128, 142, _L40_CLOCK.value, NCU_L1),
    fp64_flops=Figure(90.5 * T / 64, f"derived: 1/64 of FP32 90.5 TFLOPS ({ADA_WP}); FP32 from {L40_DS}"),
    fp32_flops=Figure(90.5 * T, f"FP32 90.5 TFLOPS: {L40_DS}"),
    fp16_flops=Figure(90.5 * T, f"derived: = FP32 90.5 TFLOPS ({ADA_WP})"),
    tensor_tf32_flops=_dense(181 * T, f"TF32 Tensor Core 90.5 | 181* TFLOPS: {L40_DS}"),
    tensor_bf16_flops=_dense(362.1 * T, f"BFLOAT16 Tensor Core 181.05 | 362.1* TFLOPS: {L40_DS}"),
    tensor_fp16_flops=_dense(362.1 * T, f"FP16 Tensor Core 181.05 | 362.1* TFLOPS: {L40_DS}"),
    tensor_fp8_flops=_dense(724 * T, f"FP8 Tensor Core 362 | 724* TFLOPS: {L40_DS}"),
    tensor_int8_flops=_dense(724 * T, f"INT8 Tensor Core 362 | 724* TOPS: {L40_DS}"),
    notes="L2 bandwidth not published.",
)

_L40S_CLOCK = 91.6 * T / (2 * 18176)
L40S = DeviceSpec(
    name="NVIDIA L40S",
    aliases=("L40S",),
    family="L40S",
    cc="8.9",
    sm_count=Figure(142, f"18,176 CUDA cores / 128 FP32 lanes per SM (Ada): {L40S_DS}"),
    sm_clock_hz=_clock_from_fp32(91.6 * T, 18176, L40S_DS),
    memory="48 GB GDDR6",
    dram_bytes_per_s=Figure(864 * G, f"GPU memory bandwidth 864 GB/s: {L40S_DS}"),
    l1_bytes_per_s=_l1(128, 142, _L40S_CLOCK, NCU_L1),
    fp64_flops=Figure(91.6 * T / 64, f"derived: 1/64 of FP32 91.6 TFLOPS ({ADA_WP}); FP32 from {L40S_DS}"),
    fp32_flops=Figure(91.6 * T, f"FP32 91.6 TFLOPS: {L40S_DS}"),
    fp16_flops=Figure(91.6 * T, f"derived: = FP32 91.6 TFLOPS ({ADA_WP})"),
    tensor_tf32_flops=_dense(366 * T, f"TF32 Tensor Core 183 | 366* TFLOPS: {L40S_DS}"),
    tensor_bf16_flops=_dense(733 * T, f"BF16 Tensor Core 362.05 | 733* TFLOPS: {L40S_DS}"),
    tensor_fp16_flops=_dense(733 * T, f"FP16 Tensor Core 362.05 | 733* TFLOPS: {L40S_DS}"),
    tensor_fp8_flops=_dense(1466 * T, f"FP8 Tensor Core 733 | 1,466* TFLOPS: {L40S_DS}"),
    tensor_int8_flops=_dense(1466 * T, f"INT8 Tensor Core 733 | 1,466* TOPS: {L40S_DS}"),
    notes="L2 bandwidth not published. Same SMs and memory as the L40 (only the tensor rates differ).",
)

_RTX6000ADA_CLOCK = _clock_from_fp32(91.1 * T, 18176, RTX6000ADA_PAGE)
RTX6000ADA = DeviceSpec(
    name="NVIDIA RTX 6000 Ada Generation",
    aliases=("RTX 6000 Ada", "RTX 6000 Ada Generation"),
    family="RTX 6000 Ada",
    cc="8.9",
    memory="48 GB GDDR6",
    sm_count=Figure(142, f"18,176 CUDA cores / 128 FP32 lanes per SM (Ada): {RTX6000ADA_PAGE}"),
    sm_clock_hz=_RTX6000ADA_CLOCK,
    dram_bytes_per_s=Figure(960 * G, f"GPU memory bandwidth 960 GB/s: {RTX6000ADA_PAGE}"),
    l1_bytes_per_s=_l1(128, 142, _RTX6000ADA_CLOCK.value, NCU_L1),
    fp64_flops=Figure(91.1 * T / 64, f"derived: 1/64 of FP32 91.1 TFLOPS ({ADA_WP}); FP32 from {RTX6000ADA_PAGE}"),
    fp32_flops=Figure(91.1 * T, f"single-precision performance 91.1 TFLOPS: {RTX6000ADA_PAGE}"),
    fp16_flops=Figure(91.1 * T, f"derived: = FP32 91.1 TFLOPS ({ADA_WP})"),
    tensor_fp8_flops=_dense(1457 * T, f"tensor performance 1,457* TFLOPS (FP8): {RTX6000ADA_PAGE}"),
    notes="Only the sparse FP8 tensor figure is published; L2 bandwidth not published.",
)

_RTX4090_CLOCK = 2.520 * G
RTX4090 = DeviceSpec(
    name="NVIDIA GeForce RTX 4090",
    aliases=("GeForce RTX 4090", "RTX 4090"),
    family="RTX 4090",
    cc="8.9",
    sm_count=Figure(128, f"128 SMs (16,384 CUDA cores): {ADA_WP}"),
    sm_clock_hz=Figure(_RTX4090_CLOCK, f"boost clock 2520 MHz: {ADA_WP}"),
    memory="24 GB GDDR6X",
    dram_bytes_per_s=Figure(1008 * G, f"memory bandwidth 1008 GB/s: {ADA_WP}"),
    l1_bytes_per_s=_l1(128, 128, _RTX4090_CLOCK, NCU_L1),
    fp64_flops=Figure(82.6 * T / 64, f"derived: 1/64 of FP32 82.6 TFLOPS: {ADA_WP}"),
    fp32_flops=Figure(82.6 * T, f"peak FP32 TFLOPS (non-tensor) 82.6: {ADA_WP}"),
    fp16_flops=Figure(82.6 * T, f"peak FP16 TFLOPS (non-tensor) 82.6: {ADA_WP}"),
    tensor_tf32_flops=Figure(82.6 * T, f"peak TF32 Tensor TFLOPS 82.6 (dense): {ADA_WP}"),
    tensor_bf16_flops=Figure(165.2 * T, f"peak BF16 Tensor TFLOPS with FP32 accumulate 165.2 (dense): {ADA_WP}"),
    tensor_fp16_flops=Figure(
        165.2 * T,
        f"peak FP16 Tensor TFLOPS with FP32 accumulate 165.2 (dense; 330.3 with FP16 accumulate): {ADA_WP}",
    ),
    tensor_fp8_flops=Figure(330.3 * T, f"peak FP8 Tensor TFLOPS with FP32 accumulate 330.3 (dense): {ADA_WP}"),
    tensor_int8_flops=Figure(660.6 * T, f"peak INT8 Tensor TOPS 660.6 (dense): {ADA_WP}"),
    notes="GeForce: FP16/BF16/FP8 tensor with FP32 accumulate run at half the FP16-accumulate rate.",
)
RTX4080 = _geforce(
    name="NVIDIA GeForce RTX 4080",
    family="RTX 4080",
    cc="8.9",
    sms=76,
    cores=9728,
    boost_mhz=2505,
    gbps=22.4,
    bus_bits=256,
    memory="16 GB GDDR6X",
    page=f"GeForce RTX 4080 specifications, {GEFORCE}40-series/rtx-4080-family/",
    tensor=_ratios_of(2 * 9728 * 2505 * M, _ADA_TENSOR, f"the RTX 4090 column of {ADA_WP}"),
    notes="The RTX 4080 (16 GB), not the 4080 SUPER (80 SMs); L2 bandwidth not published.",
)

# ---- Hopper ---------------------------------------------------------------------------------------------------
_H100_SXM_CLOCK = 67 * T / (2 * 16896)
_H100_PCIE_CLOCK = 51 * T / (2 * 14592)
_H100_NVL_CLOCK = 60 * T / (2 * 16896)
_H200_CLOCK = 1.980 * G

H100_SXM = DeviceSpec(
    name="NVIDIA H100 SXM",
    aliases=("NVIDIA H100 80GB HBM3", "H100 80GB HBM3", "H100 SXM5", "H100-SXM5-80GB", "NVIDIA H100 SXM5 80GB"),
    family="H100",
    cc="9.0",
    sm_count=Figure(132, f"16,896 FP32 CUDA cores / 128 per SM: {HOPPER_WP}"),
    sm_clock_hz=_clock_from_fp32(67 * T, 16896, f"{H100_DS}; {HOPPER_WP}"),
    memory="80 GB HBM3",
    dram_bytes_per_s=Figure(3.35 * T, f"GPU memory bandwidth 3.35 TB/s, H100 SXM column: {H100_DS}"),
    l1_bytes_per_s=_l1(128, 132, _H100_SXM_CLOCK, NCU_L1),
    fp64_flops=Figure(34 * T, f"FP64 34 TFLOPS, H100 SXM column: {H100_DS}"),
    fp32_flops=Figure(67 * T, f"FP32 67 TFLOPS, H100 SXM column: {H100_DS}"),
    fp16_flops=Figure(2 * 67 * T, f"derived: 2 x FP32 67 TFLOPS ({HOPPER_WP})"),
    tensor_fp64_flops=Figure(67 * T, f"FP64 Tensor Core 67 TFLOPS, H100 SXM column: {H100_DS}"),
    tensor_tf32_flops=_dense(989 * T, f"TF32 Tensor Core 989* TFLOPS, H100 SXM column: {H100_DS}"),
    tensor_bf16_flops=_dense(1979 * T, f"BFLOAT16 Tensor Core 1,979* TFLOPS, H100 SXM column: {H100_DS}"),
    tensor_fp16_flops=_dense(1979 * T, f"FP16 Tensor Core 1,979* TFLOPS, H100 SXM column: {H100_DS}"),
    tensor_fp8_flops=_dense(3958 * T, f"FP8 Tensor Core 3,958* TFLOPS, H100 SXM column: {H100_DS}"),
    tensor_int8_flops=_dense(3958 * T, f"INT8 Tensor Core 3,958* TOPS, H100 SXM column: {H100_DS}"),
    notes="L2 bandwidth not published (the H200's, measured by ncu, does not transfer: 50 MB vs 60 MB L2).",
)
H100_PCIE = DeviceSpec(
    name="NVIDIA H100 PCIe",
    aliases=("H100 PCIe", "NVIDIA H100 PCIe 80GB", "H100-PCIE-80GB"),
    family="H100",
    cc="9.0",
    sm_count=Figure(114, f"14,592 FP32 CUDA cores / 128 per SM: {HOPPER_WP}"),
    sm_clock_hz=_clock_from_fp32(51 * T, 14592, f"{H100_DS}; {HOPPER_WP}"),
    memory="80 GB HBM2e",
    dram_bytes_per_s=Figure(2.0 * T, f"GPU memory bandwidth 2 TB/s, H100 PCIe column: {H100_DS}"),
    l1_bytes_per_s=_l1(128, 114, _H100_PCIE_CLOCK, NCU_L1),
    fp64_flops=Figure(26 * T, f"FP64 26 TFLOPS, H100 PCIe column: {H100_DS}"),
    fp32_flops=Figure(51 * T, f"FP32 51 TFLOPS, H100 PCIe column: {H100_DS}"),
    fp16_flops=Figure(2 * 51 * T, f"derived: 2 x FP32 51 TFLOPS (GH100 SM, {HOPPER_WP})"),
    tensor_fp64_flops=Figure(51 * T, f"FP64 Tensor Core 51 TFLOPS, H100 PCIe column: {H100_DS}"),
    tensor_tf32_flops=_dense(756 * T, f"TF32 Tensor Core 756* TFLOPS, H100 PCIe column: {H100_DS}"),
    tensor_bf16_flops=_dense(1513 * T, f"BFLOAT16 Tensor Core 1,513* TFLOPS, H100 PCIe column: {H100_DS}"),
    tensor_fp16_flops=_dense(1513 * T, f"FP16 Tensor Core 1,513* TFLOPS, H100 PCIe column: {H100_DS}"),
    tensor_fp8_flops=_dense(3026 * T, f"FP8 Tensor Core 3,026* TFLOPS, H100 PCIe column: {H100_DS}"),
    tensor_int8_flops=_dense(3026 * T, f"INT8 Tensor Core 3,026* TOPS, H100 PCIe column: {H100_DS}"),
    notes="L2 bandwidth not published.",
)
H100_NVL = DeviceSpec(
    name="NVIDIA H100 NVL",
    aliases=("H100 NVL", "NVIDIA H100 NVL 94GB"),
    family="H100",
    cc="9.0",
    sm_count=Figure(132, f"132 SMs, as the H100 SXM ({HOPPER_WP})"),
    sm_clock_hz=_clock_from_fp32(60 * T, 16896, f"H100 NVL column of {H100_DS}; {HOPPER_WP}"),
    memory="94 GB HBM3",
    dram_bytes_per_s=Figure(3.9 * T, f"GPU memory bandwidth 3.9 TB/s, H100 NVL column: {H100_DS}"),
    l1_bytes_per_s=_l1(128, 132, _H100_NVL_CLOCK, NCU_L1),
    fp64_flops=Figure(30 * T, f"FP64 30 TFLOPS, H100 NVL column: {H100_DS}"),
    fp32_flops=Figure(60 * T, f"FP32 60 TFLOPS, H100 NVL column: {H100_DS}"),
    fp16_flops=Figure(2 * 60 * T, f"derived: 2 x FP32 60 TFLOPS (GH100 SM, {HOPPER_WP})"),
    tensor_fp64_flops=Figure(60 * T, f"FP64 Tensor Core 60 TFLOPS, H100 NVL column: {H100_DS}"),
    tensor_tf32_flops=_dense(835 * T, f"TF32 Tensor Core 835* TFLOPS, H100 NVL column: {H100_DS}"),
    tensor_bf16_flops=_dense(1671 * T, f"BFLOAT16 Tensor Core 1,671* TFLOPS, H100 NVL column: {H100_DS}"),
    tensor_fp16_flops=_dense(1671 * T, f"FP16 Tensor Core 1,671* TFLOPS, H100 NVL column: {H100_DS}"),
    tensor_fp8_flops=_dense(3341 * T, f"FP8 Tensor Core 3,341* TFLOPS, H100 NVL column: {H100_DS}"),
    tensor_int8_flops=_dense(3341 * T, f"INT8 Tensor Core 3,341* TOPS, H100 NVL column: {H100_DS}"),
    notes="Per GPU (an NVL pair is two). L2 bandwidth not published.",
)
H20 = DeviceSpec(
    name="NVIDIA H20",
    aliases=("H20",),
    family="H20",
    cc="9.0",
    sm_count=Figure(78, f"78 SMs (third-party: Geekbench listing, as reported with {H20_3RD})"),
    sm_clock_hz=None,
    memory="96 GB HBM3",
    dram_bytes_per_s=Figure(4.0 * T, f"memory bandwidth 4.0 TB/s: {H20_3RD}"),
    fp64_flops=Figure(1 * T, f"FP64 1 TFLOPS: {H20_3RD}"),
    fp32_flops=Figure(44 * T, f"FP32 44 TFLOPS: {H20_3RD}"),
    tensor_tf32_flops=Figure(74 * T, f"TF32 Tensor Core 74 TFLOPS (dense): {H20_3RD}"),
    tensor_bf16_flops=Figure(148 * T, f"BF16 Tensor Core 148 TFLOPS (dense): {H20_3RD}"),
    tensor_fp16_flops=Figure(148 * T, f"FP16 Tensor Core 148 TFLOPS (dense): {H20_3RD}"),
    tensor_fp8_flops=Figure(296 * T, f"FP8 Tensor Core 296 TFLOPS (dense): {H20_3RD}"),
    tensor_int8_flops=Figure(296 * T, f"INT8 Tensor Core 296 TOPS (dense): {H20_3RD}"),
    notes=(
        "NVIDIA publishes no H20 datasheet: every figure is third-party, the clock is unknown, and the FP32 "
        "figure does not follow from 78 SMs at Hopper clocks. Prefer the report's own peaks."
    ),
)
H200 = DeviceSpec(
    name="NVIDIA H200",
    aliases=("H200", "NVIDIA H200 SXM", "NVIDIA H200 141GB HBM3e", "H200 SXM"),
    family="H200",
    cc="9.0",
    sm_count=Figure(132, f"device__attribute_multiprocessor_count = 132: {H200_NCU}"),
    sm_clock_hz=Figure(_H200_CLOCK, f"device__attribute_max_gpu_frequency_khz = 1,980,000: {H200_NCU}"),
    memory="141 GB HBM3e",
    dram_bytes_per_s=Figure(4.8 * T, f"GPU memory bandwidth 4.8 TB/s: {H200_DS}"),
    l2_bytes_per_s=Figure(
        188 * 32 * 1.709 * G,
        f"measured: lts__lts2xbar_cycles_active.sum.peak_sustained 188 x 32 B x "
        f"lts__cycles_elapsed.avg.per_second 1.709 GHz: {H200_NCU}",
    ),
    l1_bytes_per_s=_l1(128, 132, _H200_CLOCK, NCU_L1),
    fp64_flops=Figure(34 * T, f"FP64 34 TFLOPS: {H200_DS}"),
    fp32_flops=Figure(67 * T, f"FP32 67 TFLOPS: {H200_DS}"),
    fp16_flops=Figure(2 * 67 * T, f"derived: 2 x FP32 67 TFLOPS (GH100 SM, {HOPPER_WP})"),
    tensor_fp64_flops=Figure(67 * T, f"FP64 Tensor Core 67 TFLOPS: {H200_DS}"),
    tensor_tf32_flops=_dense(989 * T, f"TF32 Tensor Core 989* TFLOPS: {H200_DS}"),
    tensor_bf16_flops=_dense(1979 * T, f"BFLOAT16 Tensor Core 1,979* TFLOPS: {H200_DS}"),
    tensor_fp16_flops=_dense(1979 * T, f"FP16 Tensor Core 1,979* TFLOPS: {H200_DS}"),
    tensor_fp8_flops=_dense(3958 * T, f"FP8 Tensor Core 3,958* TFLOPS: {H200_DS}"),
    tensor_int8_flops=_dense(3958 * T, f"INT8 Tensor Core 3,958* TOPS: {H200_DS}"),
)


def _gh200(name: str, aliases: tuple[str, ...], memory: str, bw: float) -> DeviceSpec:
    return DeviceSpec(
        name=name,
        aliases=aliases,
        family="GH200",
        cc="9.0",
        sm_count=Figure(132, f"132 SMs, the H100 SXM's ({HOPPER_WP}); compute figures equal: {GH200_DS}"),
        sm_clock_hz=_clock_from_fp32(67 * T, 16896, f"{GH200_DS}; {HOPPER_WP}"),
        memory=memory,
        dram_bytes_per_s=Figure(bw * T, f"GPU memory bandwidth {bw:g} TB/s ({memory}): {GH200_DS}"),
        l1_bytes_per_s=_l1(128, 132, _H100_SXM_CLOCK, NCU_L1),
        fp64_flops=Figure(34 * T, f"FP64 34 TFLOPS: {GH200_DS}"),
        fp32_flops=Figure(67 * T, f"FP32 67 TFLOPS: {GH200_DS}"),
        fp16_flops=Figure(2 * 67 * T, f"derived: 2 x FP32 67 TFLOPS (GH100 SM, {HOPPER_WP})"),
        tensor_fp64_flops=Figure(67 * T, f"FP64 Tensor Core 67 TFLOPS: {GH200_DS}"),
        tensor_tf32_flops=_dense(989 * T, f"TF32 Tensor Core 494 | 989* TFLOPS: {GH200_DS}"),
        tensor_bf16_flops=_dense(1979 * T, f"BFLOAT16 Tensor Core 990 | 1,979* TFLOPS: {GH200_DS}"),
        tensor_fp16_flops=_dense(1979 * T, f"FP16 Tensor Core 990 | 1,979* TFLOPS: {GH200_DS}"),
        tensor_fp8_flops=_dense(3958 * T, f"FP8 Tensor Core 1,979 | 3,958* TFLOPS: {GH200_DS}"),
        tensor_int8_flops=_dense(3958 * T, f"INT8 Tensor Core 1,979 | 3,958* TOPS: {GH200_DS}"),
        notes="The Hopper GPU of the superchip; L2 bandwidth not published.",
    )


# ---- Blackwell ------------------------------------------------------------------------------------------------
_B200_CLOCK = 1.980 * G
B200 = DeviceSpec(
    name="NVIDIA B200",
    aliases=("B200", "NVIDIA B200 SXM", "HGX B200"),
    family="B200",
    cc="10.0",
    sm_count=Figure(148, B200_3RD),
    sm_clock_hz=Figure(_B200_CLOCK, B200_3RD),
    memory="180 GB HBM3e (HGX B200)",
    dram_bytes_per_s=Figure(7.7 * T, f"GPU memory bandwidth 7.7 TB/s: {HGX_PAGE}"),
    fp64_flops=Figure(37 * T, f"FP64/FP64 Tensor Core 37 TFLOPS: {HGX_PAGE}"),
    fp32_flops=Figure(75 * T, f"FP32 75 TFLOPS: {HGX_PAGE}"),
    tensor_fp64_flops=Figure(37 * T, f"FP64/FP64 Tensor Core 37 TFLOPS: {HGX_PAGE}"),
    tensor_tf32_flops=_dense(2.2e15, f"TF32 Tensor Core 2.2* PFLOPS: {HGX_PAGE}"),
    tensor_bf16_flops=_dense(4.5e15, f"FP16/BF16 Tensor Core 4.5* PFLOPS: {HGX_PAGE}"),
    tensor_fp16_flops=_dense(4.5e15, f"FP16/BF16 Tensor Core 4.5* PFLOPS: {HGX_PAGE}"),
    tensor_fp8_flops=_dense(9e15, f"FP8/FP6 Tensor Core 9* PFLOPS: {HGX_PAGE}"),
    tensor_int8_flops=_dense(9e15, f"INT8 Tensor Core 9* POPS: {HGX_PAGE}"),
    notes=(
        "HGX B200 (1,000 W) figures; NVIDIA publishes neither SM count nor clocks (third-party values "
        "given), nor the non-tensor FP16 rate, L1 or L2 bandwidth. Prefer the report's own peaks."
    ),
)
GB200 = DeviceSpec(
    name="NVIDIA GB200",
    aliases=("GB200",),
    family="GB200",
    cc="10.0",
    sm_count=None,
    sm_clock_hz=None,
    memory="186 GB HBM3e (one GPU of a GB200 superchip)",
    dram_bytes_per_s=Figure(8 * T, f"derived: one-half of the superchip's 16 TB/s GPU memory bandwidth: {GB200_PAGE}"),
    fp64_flops=Figure(45 * T, f"derived: one-half of the superchip's FP64 90 TFLOPS: {GB200_PAGE}"),
    tensor_fp64_flops=Figure(45 * T, f"derived: one-half of the superchip's FP64 Tensor Core 90 TFLOPS: {GB200_PAGE}"),
    tensor_tf32_flops=Figure(
        1.25e15, f"derived: one-quarter of the superchip's TF32 Tensor Core 5* PFLOPS: {GB200_PAGE}"
    ),
    tensor_bf16_flops=Figure(2.5e15, f"derived: one-quarter of the superchip's FP16/BF16 10* PFLOPS: {GB200_PAGE}"),
    tensor_fp16_flops=Figure(2.5e15, f"derived: one-quarter of the superchip's FP16/BF16 10* PFLOPS: {GB200_PAGE}"),
    tensor_fp8_flops=Figure(5e15, f"derived: one-quarter of the superchip's FP8/FP6 20* PFLOPS: {GB200_PAGE}"),
    tensor_int8_flops=Figure(5e15, f"derived: one-quarter of the superchip's INT8 20* POPS: {GB200_PAGE}"),
    notes=(
        "Per GPU of the superchip (two GPUs). NVIDIA publishes neither SM count, clocks, FP32 nor FP16 "
        "non-tensor rates, L1 or L2 bandwidth for it. Prefer the report's own peaks."
    ),
)
_BLACKWELL_GEFORCE = (
    "RTX Blackwell (CC 12.0): tensor rates with FP32 accumulate and the non-tensor FP16 rate are not taken "
    "from a published table; L2 bandwidth not published. Prefer the report's own peaks."
)
RTX5090 = _geforce(
    name="NVIDIA GeForce RTX 5090",
    family="RTX 5090",
    cc="12.0",
    sms=170,
    cores=21760,
    boost_mhz=2407,
    gbps=28,
    bus_bits=512,
    memory="32 GB GDDR7",
    page=f"GeForce RTX 5090 specifications, {GEFORCE}50-series/rtx-5090/",
    fp16_per_fp32=None,
    notes=_BLACKWELL_GEFORCE,
)
RTX5080 = _geforce(
    name="NVIDIA GeForce RTX 5080",
    family="RTX 5080",
    cc="12.0",
    sms=84,
    cores=10752,
    boost_mhz=2617,
    gbps=30,
    bus_bits=256,
    memory="16 GB GDDR7",
    page=f"GeForce RTX 5080 specifications, {GEFORCE}50-series/rtx-5080/",
    fp16_per_fp32=None,
    notes=_BLACKWELL_GEFORCE,
)
RTX5060TI = _geforce(
    name="NVIDIA GeForce RTX 5060 Ti",
    family="RTX 5060 Ti",
    cc="12.0",
    sms=36,
    cores=4608,
    boost_mhz=2572,
    gbps=28,
    bus_bits=128,
    memory="8 or 16 GB GDDR7",
    page=f"GeForce RTX 5060 family specifications, {GEFORCE}50-series/rtx-5060-family/",
    fp16_per_fp32=None,
    notes=_BLACKWELL_GEFORCE,
)

#: The table, Volta to Blackwell; within a family, the first entry is the form a bare family name picks.
DEVICES: tuple[DeviceSpec, ...] = (
    # Pascal, Volta, Turing
    GTX1080,
    _v100_sxm2(16),
    _v100_sxm2(32),
    _v100_pcie(16),
    _v100_pcie(32),
    V100S,
    T4,
    GTX1650,
    RTX2060,
    RTX2080TI,
    # Ampere
    _a100("SXM4", 80, 2039, "NVIDIA A100-SXM4-80GB", ("A100-SXM4-80GB", "A100 SXM4 80GB", "A100 80GB SXM"), A100_DS),
    _a100("SXM4", 40, 1555, "NVIDIA A100-SXM4-40GB", ("A100-SXM4-40GB", "A100 SXM4 40GB", "A100 40GB SXM"), A100_WP),
    _a100("PCIe", 80, 1935, "NVIDIA A100 80GB PCIe", ("A100-PCIE-80GB", "A100 PCIe 80GB"), A100_DS),
    _a100("PCIe", 40, 1555, "NVIDIA A100-PCIE-40GB", ("A100-PCIE-40GB", "A100 PCIe 40GB", "A100 40GB PCIe"), A100_WP),
    A30,
    A10,
    A40,
    RTXA6000,
    RTX3080,
    RTX3090,
    # Ada
    L4,
    L40,
    L40S,
    RTX6000ADA,
    RTX4080,
    RTX4090,
    # Hopper
    H100_SXM,
    H100_PCIE,
    H100_NVL,
    H20,
    H200,
    _gh200("NVIDIA GH200 480GB", ("GH200", "GH200 480GB", "NVIDIA GH200 96GB HBM3"), "96 GB HBM3", 4.0),
    _gh200("NVIDIA GH200 144G HBM3e", ("GH200 144GB", "NVIDIA GH200 144GB HBM3e"), "144 GB HBM3e", 4.9),
    # Blackwell
    B200,
    GB200,
    RTX5060TI,
    RTX5080,
    RTX5090,
)
