import paddle
from paddle import nn

paddle.seed(0)
model = nn.Sequential(
    nn.Linear(8, 8),
    nn.Tanh(),  # backward of tanh needs its output
    nn.Dropout(0.1),
    nn.Linear(8, 8),
    nn.ReLU(),
    nn.Linear(8, 1),
)
# A memory trick found in many code bases: every layer that can work in place does.
switched = []
for name, layer in model.named_sublayers():
    if hasattr(layer, "inplace"):
        layer.inplace = True
        switched.append(name)
print(f"switched to in place: {switched}")
try:
    model(paddle.randn([4, 8])).sum().backward()
    message = "no error"
except RuntimeError as error:
    if "modified by an inplace operation" not in str(error):
        raise
    message = f"RuntimeError: {error}"
print(message)
