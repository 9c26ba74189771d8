# ConnectX-4 (mlx5, MT27700 family, vendor part 4115).
#   [A] https://github.com/open-mpi/ompi/issues/9087 (fw 12.18.1000)
#   [B] https://github.com/openucx/ucx/issues/7613 (fw 12.28.2006)
#   [S] a published `ibv_devinfo -v` of a ConnectX-4 Lx (part 4117, fw
#       14.27.1016): the same mlx5 family, for what [A] and [B] do not show
#   [L] https://github.com/ofiwg/libfabric/pull/3790 (MT4115: RC inline
#       988 accepted, more refused with EINVAL)
name cx4
max_qp_wr 32768             # [A] [B]
max_sge 30                  # [S]
max_qp_rd_atom 16           # [S]
max_qp_init_rd_atom 16      # [S]
max_cqe 4194303             # [S]
atomic_cap hca              # [S] ATOMIC_HCA
odp yes                     # [S] rc_odp_caps: SEND RECV WRITE READ SRQ_RECV
dm_size 0                   # none known on ConnectX-4 (no published 4115 output shows the line)
active_mtu 1024             # [S] Ethernet port, 1500-byte MTU
max_inline_data 988         # [L]
# mlx5_ib_rereg_user_mr: a new mkey (new lkey and rkey) when the MR must be
# recreated, as on kernels before the 5.12 rework or where UMR cannot update
# it (linux drivers/infiniband/hw/mlx5/mr.c).
rereg new-key
