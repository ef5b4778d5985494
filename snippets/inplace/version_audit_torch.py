import torch
from torch import nn


def find_in_place_writers(model, inputs):
    """Run one forward; name each layer that wrote into its input, and who made that input."""
    produced, versions, found = [], {}, []  # produced: (output, the layer that made it)
    layers = [
        (name, module) for name, module in model.named_modules() if not list(module.children())
    ]
    for name, module in layers:

        def before(module, args, name=name):
            versions[name] = [arg._version for arg in args]

        def after(module, args, output, name=name):
            for arg, version in zip(args, versions[name], strict=True):
                if arg._version != version:  # this layer wrote into its input
                    maker = next((who for made, who in produced if made is arg), "the input")
                    found.append(f"{name} ({type(module).__name__}) wrote the output of {maker}")
            produced.append((output, f"{name} ({type(module).__name__})"))

        module.register_forward_pre_hook(before)
        module.register_forward_hook(after)
    model(inputs)
    return found


torch.manual_seed(0)
model = nn.Sequential(
    nn.Linear(8, 8), nn.Tanh(), nn.Dropout(0.1), nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 1)
)
for module in model.modules():  # the loop of the in-place layers page
    if hasattr(module, "inplace"):
        module.inplace = True
writers = find_in_place_writers(model, torch.randn(4, 8))
print(writers)
