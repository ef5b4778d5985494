import torch

weight = torch.tensor([0.5, 1.0, 2.0], requires_grad=True)
hidden = weight * 1  # requires gradients


def write_through(to_array):
    """Add 1 to the array that `to_array` gives for hidden; report whether hidden changed."""
    before = hidden.tolist()
    try:
        array = to_array()
    except RuntimeError as exc:
        return f"RuntimeError: {exc}"
    array += 1
    return "hidden changed" if hidden.tolist() != before else "hidden unchanged: a copy"


outcome = {
    "hidden.numpy()": write_through(lambda: hidden.numpy()),
    "hidden.detach().numpy()": write_through(lambda: hidden.detach().numpy()),
}
for route, result in outcome.items():
    print(f"{route:24} {result}")
