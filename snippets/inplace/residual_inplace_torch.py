import torch
from torch import nn


class PreActivationBlock(nn.Module):
    """A residual block that activates its input first: shortcut + fc(relu(x))."""

    def __init__(self, features, project, inplace):
        super().__init__()
        self.shortcut = nn.Linear(features, features) if project else nn.Identity()
        self.relu = nn.ReLU(inplace=inplace)
        self.fc = nn.Linear(features, features)

    def forward(self, x):
        shortcut = self.shortcut(x)  # the projection saves x; the identity is x itself
        return shortcut + self.fc(self.relu(x))  # ReLU(inplace=True) overwrites x


def run(project, inplace):
    """Output and first-layer gradient of Linear, block, Linear; or the error."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 4), PreActivationBlock(4, project, inplace), nn.Linear(4, 1))
    output = model(torch.tensor([[1.0, -2.0, 0.5, -0.3], [0.2, 0.4, -1.0, 2.0]]))
    try:
        output.sum().backward()
    except RuntimeError as error:
        return f"RuntimeError: {error}"
    return output.detach(), model[0].weight.grad


outcome = {}
for shortcut, project in (("projection", True), ("identity", False)):
    in_place, out_of_place = run(project, True), run(project, False)
    if isinstance(in_place, str):
        outcome[shortcut] = in_place
    else:
        same_output = torch.allclose(in_place[0], out_of_place[0])
        same_gradient = torch.allclose(in_place[1], out_of_place[1])
        outcome[shortcut] = f"no error; same output: {same_output}, same gradient: {same_gradient}"
for shortcut, result in outcome.items():
    print(f"{shortcut} shortcut: {result}")
