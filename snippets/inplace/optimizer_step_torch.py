import torch

weight = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
optimizer = torch.optim.SGD([weight], lr=0.25)
storage = weight.data_ptr()

(weight * weight).sum().backward()
optimizer.step()

print(f"weight after step(): {weight.tolist()}")
print(f"same storage:        {weight.data_ptr() == storage}")
print(f"version:             {weight._version}")
