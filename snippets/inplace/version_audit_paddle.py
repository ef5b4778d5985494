import paddle
from paddle import nn


def find_in_place_writers(model, inputs):
    """Run one forward; name each layer that wrote into its input, and who made that input."""
    produced, versions, found = [], {}, []  # produced: (output, the layer that made it)
    layers = [(name, layer) for name, layer in model.named_sublayers() if not layer.sublayers()]
    for name, layer in layers:

        def before(layer, args, name=name):
            versions[name] = [arg.inplace_version for arg in args]

        def after(layer, args, output, name=name):
            for arg, version in zip(args, versions[name], strict=True):
                if arg.inplace_version != version:  # this layer wrote into its input
                    maker = next((who for made, who in produced if made is arg), "the input")
                    found.append(f"{name} ({type(layer).__name__}) wrote the output of {maker}")
            produced.append((output, f"{name} ({type(layer).__name__})"))

        layer.register_forward_pre_hook(before)
        layer.register_forward_post_hook(after)
    model(inputs)
    return found


paddle.seed(0)
model = nn.Sequential(
    nn.Linear(8, 8), nn.Tanh(), nn.Dropout(0.1), nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 1)
)
for layer in model.sublayers():  # the loop of the in-place layers page
    if hasattr(layer, "inplace"):
        layer.inplace = True
writers = find_in_place_writers(model, paddle.randn([4, 8]))
print(writers)
