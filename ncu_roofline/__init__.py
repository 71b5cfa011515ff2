"""ncu-roofline: hierarchical roofline and diagnostics from Nsight Compute exports."""
