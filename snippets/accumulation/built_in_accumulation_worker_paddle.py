"""One of the two training processes that built_in_accumulation_paddle.py starts."""

import json

import paddle
import paddle.distributed as dist
from paddle.distributed import fleet

strategy = fleet.DistributedStrategy()
strategy.gradient_merge = True  # documented as gradient accumulation: step every k_steps calls
strategy.gradient_merge_configs = {"k_steps": 4, "avg": True}
fleet.init(is_collective=True, strategy=strategy)  # reads the PADDLE_* variables

paddle.seed(0)  # the same weights and data in every process
model = fleet.distributed_model(paddle.nn.Linear(8, 1))
optimizer = fleet.distributed_optimizer(
    paddle.optimizer.SGD(learning_rate=0.1, parameters=model.parameters())
)
weight = model.parameters()[0]
changed = []
for micro_batch in paddle.randn([16, 8]).chunk(4):
    weight_before = weight.clone()
    model(micro_batch).mean().backward()
    optimizer.step()  # with gradient merge, only the 4th call should update the weights
    optimizer.clear_grad()
    changed.append(not bool(paddle.equal_all(weight, weight_before)))
print(
    json.dumps(
        {
            "rank": dist.get_rank(),
            "dynamic_graph": paddle.in_dynamic_mode(),
            "optimizer": type(optimizer).__name__,
            "weight_changed_at_each_call": changed,
        }
    )
)
