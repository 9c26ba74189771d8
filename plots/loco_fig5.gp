# LOCO Fig. 5: key-value store throughput, the paper's series only: every
# system at window 3 but Redis, LOCO's large window (128) beside it, and
# Redis at 128 clients per thread ("matching the LOCO large window size",
# Sec. 7.2). What else the documents hold (Redis at window 3, Sherman and
# Scythe at 128) is plots/loco_fig5_extra.gp's figure. Layout:
# plots/loco_fig5_common.gp.
#   gnuplot -e "in='results/quick/loco-fig5.n2.json results/quick/loco-fig5.n3.json'; out='loco-fig5.png'" plots/loco_fig5.gp
extra = 0
load "plots/loco_fig5_common.gp"
