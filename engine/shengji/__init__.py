"""shengji: the full rules engine of Tractor (拖拉机 / 升级 / 80 points)."""
