"""Built-in peak figures of common NVIDIA GPUs: the fallback when a report lacks its own peak metrics.

Data, not code: one frozen ``DeviceSpec`` per GPU; every figure is a ``Figure(value, source)`` in base SI
units (FLOP/s, byte/s, Hz) whose source names the NVIDIA document (title and URL) it comes from, or says how
it is derived and from what. A figure that is neither published nor derivable from published numbers is
``None`` (and ``DeviceSpec.notes`` says why), never a guess.

Conventions:

* Tensor figures are **dense** (no 2:4 sparsity). Where a datasheet prints only the sparse figure (marked
  "with sparsity"), the dense one is half of it, as the datasheets' footnotes state.
* NVIDIA's tensor figures for Hopper assume a lower clock than its CUDA-core figures (H100 SXM: 989.4 TFLOPS
  BF16 = 132 SMs x 4096 FLOP/clk x 1.83 GHz, while 67 TFLOPS FP32 needs 1.98 GHz). ncu's own roofs use the
  measured SM clock, so report-derived tensor peaks are up to 1.98/1.83 = 8 % above the datasheet's.
* ``fp16_flops`` is the non-tensor (HFMA2) rate, the roof of ncu's half-precision chart.
* ``l1_bytes_per_s`` = L1 load bandwidth per SM per clock x SMs x boost clock. ncu's L1 roof is
  ``l1tex__lsu_writeback_active_mem_lgds.sum.peak_sustained`` x 128 B x L1 clock, i.e. 128 B/clk per SM (the
  H200 sample: peak_sustained = 132 = SM count); Turing's L1 is 64 B/clk/SM.
* ``l2_bytes_per_s``: NVIDIA publishes L2 bandwidth only for V100 and A100 (in bytes per clock, A100
  whitepaper); the H200 figure is ncu's own ``lts__lts2xbar_cycles_active.sum.peak_sustained`` x 32 B x
  L2 clock from the H200 samples. Others are ``None``.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Figure:
    """One peak figure in base SI units and where it comes from."""

    value: float
    source: str


@dataclass(frozen=True)
class DeviceSpec:
    """A GPU's peak figures (see the module docstring for the conventions)."""

    name: str
    aliases: tuple[str, ...]  # device__attribute_display_name / nvidia-smi spellings
    cc: str
    sm_count: Figure
    boost_clock_hz: Figure
    memory: str
    dram_bytes_per_s: Figure
    l2_bytes_per_s: Figure | None
    l1_bytes_per_s: Figure | None
    fp64_flops: Figure
    fp32_flops: Figure
    fp16_flops: Figure | None
    tensor_fp64_flops: Figure | None
    tensor_tf32_flops: Figure | None
    tensor_bf16_flops: Figure | None
    tensor_fp16_flops: Figure | None
    tensor_fp8_flops: Figure | None
    tensor_int8_ops: Figure | None
    notes: str = ""

    def figures(self) -> dict[str, Figure | None]:
        """Every figure field by name (for listing and tests)."""
        return {
            "sm_count": self.sm_count,
            "boost_clock_hz": self.boost_clock_hz,
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
            "tensor_int8_ops": self.tensor_int8_ops,
        }


T = 1e12
G = 1e9

# ---- documents ---------------------------------------------------------------------------------------
V100_DS = (
    "NVIDIA Tesla V100 GPU Accelerator datasheet, V100 SXM2 column, "
    "https://images.nvidia.com/content/technologies/volta/pdf/tesla-volta-v100-datasheet-letter-fnl-web.pdf"
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
    "NVIDIA Turing GPU Architecture whitepaper (WP-09183-001), Appendix A (Tesla T4), "
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
    "NVIDIA A100 Tensor Core GPU datasheet, A100 SXM columns, "
    "https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/"
    "nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf"
)
GA102_WP = (
    "NVIDIA Ampere GA102 GPU Architecture whitepaper V2.0 (FP16 non-tensor = FP32 rate, FP64 = 1/64 FP32 "
    "on GA10x), https://www.nvidia.com/content/PDF/nvidia-ampere-ga-102-gpu-architecture-whitepaper-v2.pdf"
)
A10_DS = (
    "NVIDIA A10 Tensor Core GPU datasheet, "
    "https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a10/pdf/datasheet-new/nvidia-a10-datasheet.pdf"
)
ADA_WP = (
    "NVIDIA Ada GPU Architecture whitepaper V2.01, Appendix A (GeForce RTX 4090; FP16 non-tensor = FP32 "
    "rate, FP64 = 1/64 FP32 on AD10x), "
    "https://images.nvidia.com/aem-dam/Solutions/geforce/ada/nvidia-ada-gpu-architecture.pdf"
)
L4_DS = "NVIDIA L4 Tensor Core GPU datasheet, https://resources.nvidia.com/en-us-data-center-overview/l4-gpu-datasheet"
L40S_DS = "NVIDIA L40S GPU datasheet, https://resources.nvidia.com/en-us-l40s/l40s-datasheet-28413"
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
HGX_PAGE = (
    "NVIDIA HGX platform page, technical specifications, HGX B200 'individual Blackwell GPU' column "
    "(tensor figures with sparsity; dense is one-half), https://www.nvidia.com/en-us/data-center/hgx/"
)
B200_3RD = (
    "third-party (not published by NVIDIA): hmc-tech.com B200 specifications, "
    "https://hmc-tech.com/gpus/nvidia-b200-vs-nvidia-gb200"
)
NCU_L1 = (
    "ncu stock roofline sections: L1 roof = l1tex__lsu_writeback_active_mem_lg[ds].sum.peak_sustained "
    "x 128 B x L1 clock, one writeback cycle per SM per clock (H200 sample: peak_sustained = 132 = SMs)"
)


def _dense(sparse: float, doc: str) -> Figure:
    return Figure(sparse / 2, f"{doc} ({sparse / T:g} TFLOPS/TOPS with sparsity; dense = one-half)")


def _l1(bytes_per_clk_sm: float, sms: int, clock_hz: float, doc: str) -> Figure:
    return Figure(
        bytes_per_clk_sm * sms * clock_hz,
        f"derived: {bytes_per_clk_sm:g} B/clk/SM x {sms} SMs x {clock_hz / G:g} GHz boost; per-SM width from {doc}",
    )


def _clock_from_fp32(fp32: float, lanes: int, doc: str) -> Figure:
    return Figure(
        fp32 / (2 * lanes),
        f"derived: FP32 {fp32 / T:g} TFLOPS / (2 FLOP x {lanes} FP32 lanes), both from {doc}",
    )


_V100_CLOCK = 1.530 * G
_T4_CLOCK = 1.590 * G
_A100_CLOCK = 1.410 * G
_A10_CLOCK = 31.2 * T / (2 * 9216)
_L4_CLOCK = 30.3 * T / (2 * 7424)
_L40S_CLOCK = 91.6 * T / (2 * 18176)
_H100_SXM_CLOCK = 67 * T / (2 * 16896)
_H100_PCIE_CLOCK = 51 * T / (2 * 14592)
_H200_CLOCK = 1.980 * G
_B200_CLOCK = 1.980 * G
_RTX4090_CLOCK = 2.520 * G


def _v100(mem: int) -> DeviceSpec:
    return DeviceSpec(
        name=f"Tesla V100-SXM2-{mem}GB",
        aliases=(f"V100-SXM2-{mem}GB", f"V100 SXM2 {mem}GB"),
        memory=f"{mem} GB HBM2",
        cc="7.0",
        sm_count=Figure(80, f"5,120 CUDA cores / 64 FP32 lanes per SM: {VOLTA_WP}"),
        boost_clock_hz=Figure(_V100_CLOCK, f"GPU Boost Clock 1530 MHz: {VOLTA_WP}"),
        dram_bytes_per_s=Figure(900 * G, f"HBM2 900 GB/s: {V100_DS}"),
        l2_bytes_per_s=Figure(
            2048 * _V100_CLOCK,
            f"derived: 2048 B/clk L2 read bandwidth (V100, as given in {A100_WP}) x 1.53 GHz boost",
        ),
        l1_bytes_per_s=_l1(128, 80, _V100_CLOCK, JIA_VOLTA),
        fp64_flops=Figure(7.8 * T, f"double precision 7.8 TFLOPS: {V100_DS}"),
        fp32_flops=Figure(15.7 * T, f"single precision 15.7 TFLOPS: {V100_DS}"),
        fp16_flops=Figure(
            2 * 15.7 * T, f"derived: 2 x FP32 (CC 7.0: 128 fp16 vs 64 fp32 results/clk/SM), {CUDA_GUIDE}"
        ),
        tensor_fp64_flops=None,
        tensor_tf32_flops=None,
        tensor_bf16_flops=None,
        tensor_fp16_flops=Figure(125 * T, f"tensor performance 125 TFLOPS: {V100_DS}"),
        tensor_fp8_flops=None,
        tensor_int8_ops=None,
        notes="Volta tensor cores run FP16 only (no TF32/BF16/FP8/INT8/FP64 tensor paths).",
    )


DEVICES: tuple[DeviceSpec, ...] = (
    _v100(16),
    _v100(32),
    DeviceSpec(
        name="Tesla T4",
        aliases=("T4", "NVIDIA T4", "Tesla T4"),
        cc="7.5",
        sm_count=Figure(40, f"2,560 CUDA cores / 64 FP32 lanes per SM: {T4_DS}"),
        boost_clock_hz=Figure(_T4_CLOCK, f"GPU Boost Clock 1590 MHz: {TURING_WP}"),
        memory="16 GB GDDR6",
        dram_bytes_per_s=Figure(320 * G, f"GDDR6 320+ GB/s: {T4_DS}"),
        l2_bytes_per_s=None,
        l1_bytes_per_s=_l1(64, 40, _T4_CLOCK, JIA_TURING),
        fp64_flops=Figure(
            8.1 * T / 32,
            f"derived: 1/32 of FP32 8.1 TFLOPS (CC 7.5: 2 fp64 vs 64 fp32 results/clk/SM, "
            f"{CUDA_GUIDE}); FP32 from {T4_DS}",
        ),
        fp32_flops=Figure(8.1 * T, f"single precision 8.1 TFLOPS: {T4_DS}"),
        fp16_flops=Figure(2 * 8.1 * T, f"derived: 2 x FP32 (CC 7.5: 128 fp16 vs 64 fp32 results/clk/SM), {CUDA_GUIDE}"),
        tensor_fp64_flops=None,
        tensor_tf32_flops=None,
        tensor_bf16_flops=None,
        tensor_fp16_flops=Figure(65 * T, f"mixed precision (FP16/FP32) 65 TFLOPS: {T4_DS}"),
        tensor_fp8_flops=None,
        tensor_int8_ops=Figure(130 * T, f"INT8 130 TOPS: {T4_DS}"),
        notes="Turing: no TF32/BF16/FP8/FP64 tensor paths; L2 bandwidth not published.",
    ),
    *(
        DeviceSpec(
            name=f"NVIDIA A100-SXM4-{mem}GB",
            aliases=(f"A100-SXM4-{mem}GB", f"A100 SXM4 {mem}GB", f"A100 {mem}GB SXM"),
            cc="8.0",
            sm_count=Figure(108, f"108 SMs: {A100_WP}"),
            boost_clock_hz=Figure(_A100_CLOCK, f"GPU Boost Clock 1410 MHz: {A100_WP}"),
            memory=f"{mem} GB HBM2{'e' if mem == 80 else ''}",
            dram_bytes_per_s=Figure(bw * G, f"GPU memory bandwidth {bw:,} GB/s: {A100_DS}"),
            l2_bytes_per_s=Figure(
                5120 * _A100_CLOCK, f"derived: 5120 B/clk L2 read bandwidth x 1.41 GHz boost: {A100_WP}"
            ),
            l1_bytes_per_s=_l1(128, 108, _A100_CLOCK, NCU_L1),
            fp64_flops=Figure(9.7 * T, f"FP64 9.7 TFLOPS: {A100_DS}"),
            fp32_flops=Figure(19.5 * T, f"FP32 19.5 TFLOPS: {A100_DS}"),
            fp16_flops=Figure(78 * T, f"peak FP16 (non-tensor) 78 TFLOPS: {A100_WP}"),
            tensor_fp64_flops=Figure(19.5 * T, f"FP64 Tensor Core 19.5 TFLOPS: {A100_DS}"),
            tensor_tf32_flops=_dense(312 * T, f"Tensor Float 32 156 | 312* TFLOPS: {A100_DS}"),
            tensor_bf16_flops=_dense(624 * T, f"BFLOAT16 Tensor Core 312 | 624* TFLOPS: {A100_DS}"),
            tensor_fp16_flops=_dense(624 * T, f"FP16 Tensor Core 312 | 624* TFLOPS: {A100_DS}"),
            tensor_fp8_flops=None,
            tensor_int8_ops=_dense(1248 * T, f"INT8 Tensor Core 624 | 1248* TOPS: {A100_DS}"),
            notes="Ampere GA100: no FP8 tensor path.",
        )
        for mem, bw in ((40, 1555), (80, 2039))
    ),
    DeviceSpec(
        name="NVIDIA A10",
        aliases=("A10",),
        cc="8.6",
        sm_count=Figure(72, f"9,216 CUDA cores / 128 FP32 lanes per SM (GA10x): {A10_DS}; {GA102_WP}"),
        boost_clock_hz=_clock_from_fp32(31.2 * T, 9216, A10_DS),
        memory="24 GB GDDR6",
        dram_bytes_per_s=Figure(600 * G, f"GPU memory bandwidth 600 GB/s: {A10_DS}"),
        l2_bytes_per_s=None,
        l1_bytes_per_s=_l1(128, 72, _A10_CLOCK, NCU_L1),
        fp64_flops=Figure(31.2 * T / 64, f"derived: 1/64 of FP32 31.2 TFLOPS ({GA102_WP}); FP32 from {A10_DS}"),
        fp32_flops=Figure(31.2 * T, f"FP32 31.2 TFLOPS: {A10_DS}"),
        fp16_flops=Figure(31.2 * T, f"derived: = FP32 31.2 TFLOPS ({GA102_WP})"),
        tensor_fp64_flops=None,
        tensor_tf32_flops=_dense(125 * T, f"TF32 Tensor Core 62.5 | 125* TFLOPS: {A10_DS}"),
        tensor_bf16_flops=_dense(250 * T, f"BFLOAT16 Tensor Core 125 | 250* TFLOPS: {A10_DS}"),
        tensor_fp16_flops=_dense(250 * T, f"FP16 Tensor Core 125 | 250* TFLOPS: {A10_DS}"),
        tensor_fp8_flops=None,
        tensor_int8_ops=_dense(500 * T, f"INT8 Tensor Core 250 | 500* TOPS: {A10_DS}"),
        notes="L2 bandwidth not published.",
    ),
    DeviceSpec(
        name="NVIDIA L4",
        aliases=("L4",),
        cc="8.9",
        sm_count=Figure(58, f"7,424 CUDA cores / 128 FP32 lanes per SM (Ada): {ADA_WP}"),
        boost_clock_hz=_clock_from_fp32(30.3 * T, 7424, f"{L4_DS}; {ADA_WP}"),
        memory="24 GB GDDR6",
        dram_bytes_per_s=Figure(300 * G, f"GPU memory bandwidth 300 GB/s: {L4_DS}"),
        l2_bytes_per_s=None,
        l1_bytes_per_s=_l1(128, 58, _L4_CLOCK, NCU_L1),
        fp64_flops=Figure(30.3 * T / 64, f"derived: 1/64 of FP32 30.3 TFLOPS ({ADA_WP}); FP32 from {L4_DS}"),
        fp32_flops=Figure(30.3 * T, f"FP32 30.3 TFLOPS: {L4_DS}"),
        fp16_flops=Figure(30.3 * T, f"derived: = FP32 30.3 TFLOPS ({ADA_WP})"),
        tensor_fp64_flops=None,
        tensor_tf32_flops=_dense(120 * T, f"TF32 Tensor Core 120* TFLOPS: {L4_DS}"),
        tensor_bf16_flops=_dense(242 * T, f"BFLOAT16 Tensor Core 242* TFLOPS: {L4_DS}"),
        tensor_fp16_flops=_dense(242 * T, f"FP16 Tensor Core 242* TFLOPS: {L4_DS}"),
        tensor_fp8_flops=_dense(485 * T, f"FP8 Tensor Core 485* TFLOPS: {L4_DS}"),
        tensor_int8_ops=_dense(485 * T, f"INT8 Tensor Core 485* TOPS: {L4_DS}"),
        notes="L2 bandwidth not published.",
    ),
    DeviceSpec(
        name="NVIDIA L40S",
        aliases=("L40S",),
        cc="8.9",
        sm_count=Figure(142, f"18,176 CUDA cores / 128 FP32 lanes per SM (Ada): {L40S_DS}"),
        boost_clock_hz=_clock_from_fp32(91.6 * T, 18176, L40S_DS),
        memory="48 GB GDDR6",
        dram_bytes_per_s=Figure(864 * G, f"GPU memory bandwidth 864 GB/s: {L40S_DS}"),
        l2_bytes_per_s=None,
        l1_bytes_per_s=_l1(128, 142, _L40S_CLOCK, NCU_L1),
        fp64_flops=Figure(91.6 * T / 64, f"derived: 1/64 of FP32 91.6 TFLOPS ({ADA_WP}); FP32 from {L40S_DS}"),
        fp32_flops=Figure(91.6 * T, f"FP32 91.6 TFLOPS: {L40S_DS}"),
        fp16_flops=Figure(91.6 * T, f"derived: = FP32 91.6 TFLOPS ({ADA_WP})"),
        tensor_fp64_flops=None,
        tensor_tf32_flops=_dense(366 * T, f"TF32 Tensor Core 183 | 366* TFLOPS: {L40S_DS}"),
        tensor_bf16_flops=_dense(733 * T, f"BF16 Tensor Core 362.05 | 733* TFLOPS: {L40S_DS}"),
        tensor_fp16_flops=_dense(733 * T, f"FP16 Tensor Core 362.05 | 733* TFLOPS: {L40S_DS}"),
        tensor_fp8_flops=_dense(1466 * T, f"FP8 Tensor Core 733 | 1,466* TFLOPS: {L40S_DS}"),
        tensor_int8_ops=_dense(1466 * T, f"INT8 Tensor Core 733 | 1,466* TOPS: {L40S_DS}"),
        notes="L2 bandwidth not published.",
    ),
    DeviceSpec(
        name="NVIDIA H100 SXM",
        aliases=(
            "NVIDIA H100 80GB HBM3",
            "H100 80GB HBM3",
            "H100 SXM5",
            "H100-SXM5-80GB",
            "NVIDIA H100 SXM5 80GB",
        ),
        cc="9.0",
        sm_count=Figure(132, f"16,896 FP32 CUDA cores / 128 per SM: {HOPPER_WP}"),
        boost_clock_hz=_clock_from_fp32(67 * T, 16896, f"{H100_DS}; {HOPPER_WP}"),
        memory="80 GB HBM3",
        dram_bytes_per_s=Figure(3.35 * T, f"GPU memory bandwidth 3.35 TB/s: {H100_DS}"),
        l2_bytes_per_s=None,
        l1_bytes_per_s=_l1(128, 132, _H100_SXM_CLOCK, NCU_L1),
        fp64_flops=Figure(34 * T, f"FP64 34 TFLOPS: {H100_DS}"),
        fp32_flops=Figure(67 * T, f"FP32 67 TFLOPS: {H100_DS}"),
        fp16_flops=Figure(2 * 67 * T, f"derived: 2 x FP32 67 TFLOPS ({HOPPER_WP})"),
        tensor_fp64_flops=Figure(67 * T, f"FP64 Tensor Core 67 TFLOPS: {H100_DS}"),
        tensor_tf32_flops=_dense(989 * T, f"TF32 Tensor Core 989* TFLOPS: {H100_DS}"),
        tensor_bf16_flops=_dense(1979 * T, f"BFLOAT16 Tensor Core 1,979* TFLOPS: {H100_DS}"),
        tensor_fp16_flops=_dense(1979 * T, f"FP16 Tensor Core 1,979* TFLOPS: {H100_DS}"),
        tensor_fp8_flops=_dense(3958 * T, f"FP8 Tensor Core 3,958* TFLOPS: {H100_DS}"),
        tensor_int8_ops=_dense(3958 * T, f"INT8 Tensor Core 3,958* TOPS: {H100_DS}"),
        notes=("L2 bandwidth not published (the H200's, measured by ncu, does not transfer: 50 MB vs 60 MB L2)."),
    ),
    DeviceSpec(
        name="NVIDIA H100 PCIe",
        aliases=("H100 PCIe", "NVIDIA H100 PCIe 80GB", "H100-PCIE-80GB"),
        cc="9.0",
        sm_count=Figure(114, f"14,592 FP32 CUDA cores / 128 per SM: {HOPPER_WP}"),
        boost_clock_hz=_clock_from_fp32(51 * T, 14592, f"{H100_DS}; {HOPPER_WP}"),
        memory="80 GB HBM2e",
        dram_bytes_per_s=Figure(2.0 * T, f"GPU memory bandwidth 2 TB/s: {H100_DS}"),
        l2_bytes_per_s=None,
        l1_bytes_per_s=_l1(128, 114, _H100_PCIE_CLOCK, NCU_L1),
        fp64_flops=Figure(26 * T, f"FP64 26 TFLOPS: {H100_DS}"),
        fp32_flops=Figure(51 * T, f"FP32 51 TFLOPS: {H100_DS}"),
        fp16_flops=Figure(2 * 51 * T, f"derived: 2 x FP32 51 TFLOPS (GH100 SM, {HOPPER_WP})"),
        tensor_fp64_flops=Figure(51 * T, f"FP64 Tensor Core 51 TFLOPS: {H100_DS}"),
        tensor_tf32_flops=_dense(756 * T, f"TF32 Tensor Core 756* TFLOPS: {H100_DS}"),
        tensor_bf16_flops=_dense(1513 * T, f"BFLOAT16 Tensor Core 1,513* TFLOPS: {H100_DS}"),
        tensor_fp16_flops=_dense(1513 * T, f"FP16 Tensor Core 1,513* TFLOPS: {H100_DS}"),
        tensor_fp8_flops=_dense(3026 * T, f"FP8 Tensor Core 3,026* TFLOPS: {H100_DS}"),
        tensor_int8_ops=_dense(3026 * T, f"INT8 Tensor Core 3,026* TOPS: {H100_DS}"),
        notes="L2 bandwidth not published.",
    ),
    DeviceSpec(
        name="NVIDIA H200",
        aliases=("H200", "NVIDIA H200 SXM", "NVIDIA H200 141GB HBM3e", "H200 SXM"),
        cc="9.0",
        sm_count=Figure(132, f"device__attribute_multiprocessor_count = 132: {H200_NCU}"),
        boost_clock_hz=Figure(_H200_CLOCK, f"device__attribute_max_gpu_frequency_khz = 1,980,000: {H200_NCU}"),
        memory="141 GB HBM3e",
        dram_bytes_per_s=Figure(4.8 * T, f"GPU memory bandwidth 4.8 TB/s: {H200_DS}"),
        l2_bytes_per_s=Figure(
            188 * 32 * 1.709 * G,
            f"derived: lts__lts2xbar_cycles_active.sum.peak_sustained 188 x 32 B x "
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
        tensor_int8_ops=_dense(3958 * T, f"INT8 Tensor Core 3,958* TOPS: {H200_DS}"),
    ),
    DeviceSpec(
        name="NVIDIA B200",
        aliases=("B200", "NVIDIA B200 SXM", "HGX B200"),
        cc="10.0",
        sm_count=Figure(148, B200_3RD),
        boost_clock_hz=Figure(_B200_CLOCK, B200_3RD),
        memory="180 GB HBM3e (HGX B200)",
        dram_bytes_per_s=Figure(7.7 * T, f"GPU memory bandwidth 7.7 TB/s: {HGX_PAGE}"),
        l2_bytes_per_s=None,
        l1_bytes_per_s=None,
        fp64_flops=Figure(37 * T, f"FP64/FP64 Tensor Core 37 TFLOPS: {HGX_PAGE}"),
        fp32_flops=Figure(75 * T, f"FP32 75 TFLOPS: {HGX_PAGE}"),
        fp16_flops=None,
        tensor_fp64_flops=Figure(37 * T, f"FP64/FP64 Tensor Core 37 TFLOPS: {HGX_PAGE}"),
        tensor_tf32_flops=_dense(2.2e15, f"TF32 Tensor Core 2.2* PFLOPS: {HGX_PAGE}"),
        tensor_bf16_flops=_dense(4.5e15, f"FP16/BF16 Tensor Core 4.5* PFLOPS: {HGX_PAGE}"),
        tensor_fp16_flops=_dense(4.5e15, f"FP16/BF16 Tensor Core 4.5* PFLOPS: {HGX_PAGE}"),
        tensor_fp8_flops=_dense(9e15, f"FP8/FP6 Tensor Core 9* PFLOPS: {HGX_PAGE}"),
        tensor_int8_ops=_dense(9e15, f"INT8 Tensor Core 9* POPS: {HGX_PAGE}"),
        notes=(
            "HGX B200 (1,000 W) figures; NVIDIA publishes neither SM count nor clocks (third-party values "
            "given), nor the non-tensor FP16 rate, L1 or L2 bandwidth. Prefer the report's own peaks."
        ),
    ),
    DeviceSpec(
        name="NVIDIA GeForce RTX 4090",
        aliases=("GeForce RTX 4090", "RTX 4090"),
        cc="8.9",
        sm_count=Figure(128, f"128 SMs (16,384 CUDA cores): {ADA_WP}"),
        boost_clock_hz=Figure(_RTX4090_CLOCK, f"boost clock 2520 MHz: {ADA_WP}"),
        memory="24 GB GDDR6X",
        dram_bytes_per_s=Figure(1008 * G, f"memory bandwidth 1008 GB/s: {ADA_WP}"),
        l2_bytes_per_s=None,
        l1_bytes_per_s=_l1(128, 128, _RTX4090_CLOCK, NCU_L1),
        fp64_flops=Figure(82.6 * T / 64, f"derived: 1/64 of FP32 82.6 TFLOPS: {ADA_WP}"),
        fp32_flops=Figure(82.6 * T, f"peak FP32 TFLOPS (non-tensor) 82.6: {ADA_WP}"),
        fp16_flops=Figure(82.6 * T, f"peak FP16 TFLOPS (non-tensor) 82.6: {ADA_WP}"),
        tensor_fp64_flops=None,
        tensor_tf32_flops=Figure(82.6 * T, f"peak TF32 Tensor TFLOPS 82.6 (dense): {ADA_WP}"),
        tensor_bf16_flops=Figure(165.2 * T, f"peak BF16 Tensor TFLOPS with FP32 accumulate 165.2 (dense): {ADA_WP}"),
        tensor_fp16_flops=Figure(
            165.2 * T,
            f"peak FP16 Tensor TFLOPS with FP32 accumulate 165.2 (dense; 330.3 with FP16 accumulate): {ADA_WP}",
        ),
        tensor_fp8_flops=Figure(330.3 * T, f"peak FP8 Tensor TFLOPS with FP32 accumulate 330.3 (dense): {ADA_WP}"),
        tensor_int8_ops=Figure(660.6 * T, f"peak INT8 Tensor TOPS 660.6 (dense): {ADA_WP}"),
        notes="GeForce: FP16/BF16/FP8 tensor with FP32 accumulate run at half the FP16-accumulate rate.",
    ),
)
