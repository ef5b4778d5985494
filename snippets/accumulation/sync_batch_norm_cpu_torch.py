import torch.distributed as dist
from torch import nn

# One process is enough to see it: a gloo group of one, with an in-process store.
dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
model = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8))
model = nn.SyncBatchNorm.convert_sync_batchnorm(model)  # every BatchNorm becomes SyncBatchNorm
model = nn.parallel.DistributedDataParallel(model)
