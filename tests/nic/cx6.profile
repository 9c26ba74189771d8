# ConnectX-6 (mlx5, MT28908 family, vendor part 4123).
#   [A] a published `ibv_devinfo -v -d mlx5_0` of a ConnectX-6 on RoCE (fw
#       20.24.4702; a blog post on an S3-over-RDMA test)
#   [B] https://github.com/openucx/ucx/issues/8229 (fw 20.29.1016)
#   [L] https://github.com/ofiwg/libfabric/pull/3790 (mlx5 RC inline, MT4115)
name cx6
max_qp_wr 32768             # [B]; [A] shows 8192 on its firmware, an outlier
max_sge 30                  # [A]
max_qp_rd_atom 16           # [A]
max_qp_init_rd_atom 16      # [A]
max_cqe 4194303             # [A]
atomic_cap hca              # [A] ATOMIC_HCA
odp yes                     # [A] rc_odp_caps: SEND RECV WRITE READ
dm_size 131072              # [A] maximum available device memory: 131072Bytes
active_mtu 4096             # [A] Ethernet port, MTU 4096 (rxe here gives less: the smaller is used)
max_inline_data 988         # [L]: the same mlx5 provider formula; no 4123 measurement found
# Current kernels update a pinned MR's translation in place through UMR and
# keep its keys (linux drivers/infiniband/hw/mlx5/mr.c, umr_rereg_pas).
rereg keep
