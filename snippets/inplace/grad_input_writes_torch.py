import torch

REFUSAL = "out=... arguments don't support automatic differentiation"
messages = {}


def write_from_weight(write, expected):
    """Write values computed from `weight` into a fresh buffer; is the write recorded?"""
    weight = torch.tensor([0.5, 1.0, 2.0], requires_grad=True)
    buffer = torch.zeros(3)
    try:
        write(buffer, weight)
    except RuntimeError as error:
        if REFUSAL not in str(error):
            raise
        messages["out="] = str(error)
        return "error at the write"
    if not buffer.requires_grad:
        return "not recorded: weight gets no gradient"
    (buffer * buffer).sum().backward()
    correct = torch.allclose(weight.grad, expected(weight.detach()))
    return "recorded, correct gradient" if correct else "recorded, wrong gradient"


def assign_slice(buffer, weight):
    buffer[:] = weight


outcome = {
    "torch.sin(weight, out=buffer)": write_from_weight(
        lambda buffer, weight: torch.sin(weight, out=buffer),
        lambda w: 2 * torch.sin(w) * torch.cos(w),
    ),
    "buffer.copy_(weight)": write_from_weight(
        lambda buffer, weight: buffer.copy_(weight), lambda w: 2 * w
    ),
    "buffer[:] = weight": write_from_weight(assign_slice, lambda w: 2 * w),
    "buffer.index_put_(index, weight)": write_from_weight(
        lambda buffer, weight: buffer.index_put_((torch.arange(3),), weight), lambda w: 2 * w
    ),
}
for route, result in outcome.items():
    print(f"{route:34} {result}")
print(f"RuntimeError: {messages['out=']}")
