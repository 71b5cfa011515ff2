"""Rendering: terminal summary, self-contained HTML, and machine-readable exports of an Analysis.

Renderers take an :class:`ncu_roofline.analysis.Analysis` and return text (or write files); they never compute
a metric: every number comes from the analysis frames.
"""
