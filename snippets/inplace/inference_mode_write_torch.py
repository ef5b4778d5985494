import torch

weight = torch.ones(3, requires_grad=True)
scale = torch.ones(3)  # an ordinary tensor, made outside inference mode
loss = (weight * scale).sum()  # mul saves scale for weight's gradient
with torch.inference_mode():
    scale.mul_(2)  # not an inference tensor: its version counter still counts this write
print(f"scale is an inference tensor: {scale.is_inference()}, version: {scale._version}")
loss.backward()
