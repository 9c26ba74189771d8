# ConnectX-3 (mlx4, MT27500 family, vendor part 4099): CloudLab Apt r320
# and similar. Values from published `ibv_devinfo -v` output of part 4099:
#   [A] https://github.com/claudebarthels/infinity/issues/5 (fw 2.33.5100)
#   [B] Heioy/Books, chang-yong-ming-ling/xin-xi-pian/ibv_devinfo.md (fw 2.42.5000)
# No output from an Apt r320 node itself was found; max_qp and
# max_res_rd_atom differ by firmware and are not used here.
name cx3
max_qp_wr 16351             # [A] [B]
max_sge 32                  # [A] [B] (max_sge_rd 30)
max_qp_rd_atom 16           # [A] [B]
max_qp_init_rd_atom 128     # [A] [B]
max_cqe 4194303             # [A] [B]
atomic_cap hca              # [A] [B] ATOMIC_HCA
odp no                      # [A] rc_odp_caps: NO SUPPORT
dm_size 0                   # [A] prints no device memory (devinfo prints it only when nonzero)
# RoCE on a 1500-byte Ethernet MTU: 1024 (Mellanox OFED 2.2 manual, RoCE
# section: "port will run with MTU of 1K"); [B]'s InfiniBand ports say 4096.
active_mtu 1024
# devinfo does not print it: perftest's ceiling for mlx4 (MAX_INLINE 912,
# linux-rdma/perftest src/perftest_parameters.h); rdma-core's mlx4
# provider refuses above 1024 (providers/mlx4/verbs.c) and its WQE formula
# allows at most 928 for RC: 912 is the largest known to work.
max_inline_data 912
# mlx4_ib_rereg_user_mr rewrites the MPT in place: lkey and rkey are kept
# (linux drivers/infiniband/hw/mlx4/mr.c).
rereg keep
