# LOCO Fig. 5's documents, the series the paper did not draw: Redis at
# window 3, Sherman and Scythe at 128 (the paper: a larger window "appeared
# to cause internal errors" in both). A figure saying so when the documents
# hold none (the check scale runs window 3 only). Layout:
# plots/loco_fig5_common.gp.
#   gnuplot -e "in='results/quick/loco-fig5.n2.json results/quick/loco-fig5.n3.json'; out='loco-fig5-extra.png'" plots/loco_fig5_extra.gp
extra = 1
load "plots/loco_fig5_common.gp"
