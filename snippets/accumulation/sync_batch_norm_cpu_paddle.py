import paddle
from paddle import nn

model = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1D(8))
model = nn.SyncBatchNorm.convert_sync_batchnorm(model)  # every BatchNorm becomes SyncBatchNorm
model(paddle.randn([6, 4]))
