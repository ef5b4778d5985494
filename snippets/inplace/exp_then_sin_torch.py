import torch

weight = torch.tensor([0.5, 1.0, 2.0], requires_grad=True)
hidden = weight * 1
hidden.exp_()  # saves its output, which is hidden itself
hidden.sin_()  # overwrites what exp_ saved
hidden.sum().backward()
