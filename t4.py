import dataclasses, numpy as np, ncu_roofline
from ncu_roofline.analysis import analyze
from ncu_roofline.diff import compare, match_launches
R=analyze(ncu_roofline.read("/work/main/tests/data/micro_full.raw.csv"))
def mk(grids):
    lv=R.launches.iloc[:len(grids)].copy().reset_index(drop=True)
    lv["kernel_name"]="K(int)"; lv["display_name"]="K"; lv["nvtx_path"]=None
    lv["grid_x"]=grids; lv["launch_id"]=range(len(grids))
    v=R.verdicts.iloc[:len(grids)].reset_index(drop=True)
    return dataclasses.replace(R, launches=lv, verdicts=v)
# layers L0,L1,L2 ; L0 changes grid 100 -> 50 (the optimisation)
b=mk([100,200,100]); a=mk([50,200,100])
print(match_launches(b,a))
b=mk([100,100,100,100]); a=mk([50,100,100,100])
print(match_launches(b,a))
