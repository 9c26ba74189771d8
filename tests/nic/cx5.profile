# ConnectX-5 (mlx5, vendor part 4119; 4121 is the Ex).
#   [A] https://github.com/rapidsai/ucx-py/issues/361 (fw 16.23.1000)
#   [B] https://github.com/open-mpi/ompi/pull/6137 (fw 16.23.1020)
#   [C] a published `ibv_devinfo -v` of a CX515A 100GbE (fw 16.27.1016),
#       with its port and ODP lines
#   [D] https://github.com/openucx/ucx/issues/9830, [E] https://github.com/ofiwg/libfabric/issues/8256 (4121)
#   [L] https://github.com/ofiwg/libfabric/pull/3790 (mlx5 RC inline, MT4115)
name cx5
max_qp_wr 32768             # [A]-[E]
max_sge 30                  # [A] [B] [C]
max_qp_rd_atom 16           # [A] [B] [C]
max_qp_init_rd_atom 16      # [B] [C]
max_cqe 4194303             # [A] [B] [C]
atomic_cap hca              # [B] [C] ATOMIC_HCA
odp yes                     # [C] rc_odp_caps: SEND RECV WRITE READ SRQ_RECV
# No published 4119/4121 output shows the line; 128 KiB is what ConnectX-6
# and -6 Dx print ("maximum available device memory: 131072Bytes").
dm_size 131072
active_mtu 1024             # [C] Ethernet port, ACTIVE
max_inline_data 988         # [L]: the same mlx5 provider formula; no 4119 measurement found
# mlx5 recreating the MR: new lkey and rkey (linux drivers/infiniband/hw/mlx5/mr.c)
rereg new-key
