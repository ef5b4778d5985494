import torch

EXPECTED = torch.exp(torch.tensor([0.5, 1.0])).tolist() + [1.0]  # d/dw of the sum below


def activate_head(w):
    hidden = w * 1
    hidden[:2].exp_()  # in place, through a view
    return hidden


def gradient(wrap):
    """Gradient of the sum of activate_head, run through `wrap`."""
    weight = torch.tensor([0.5, 1.0, 2.0], requires_grad=True)
    wrap(activate_head)(weight).sum().backward()
    if torch.allclose(weight.grad, torch.tensor(EXPECTED)):
        return "correct gradient"
    return f"wrong gradient, no error: {weight.grad.tolist()}"


outcome = {
    "eager": gradient(lambda function: function),
    "torch.compile": gradient(lambda function: torch.compile(function, backend="aot_eager")),
}
for mode, result in outcome.items():
    print(f"{mode:26} {result}")
