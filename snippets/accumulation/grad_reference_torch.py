import torch

weight = torch.tensor([1.0, 2.0], requires_grad=True)
(weight * 3).sum().backward()  # micro-batch 1
kept = weight.grad  # a reference to the gradient tensor
kept_copy = weight.grad.clone()  # a copy
(weight * 3).sum().backward()  # micro-batch 2 adds into the same tensor
print(f"kept:      {kept.tolist()}")
print(f"kept_copy: {kept_copy.tolist()}")
print(f"weight.grad: {weight.grad.tolist()}")
print(f"same memory as kept: {kept.data_ptr() == weight.grad.data_ptr()}")

# With create_graph=True, backward replaces .grad by a new tensor instead of adding into it
graph_weight = torch.tensor([1.0, 2.0], requires_grad=True)
(graph_weight * 3).sum().backward(create_graph=True)
graph_kept = graph_weight.grad
(graph_weight * 3).sum().backward(create_graph=True)
print(f"create_graph=True, kept: {graph_kept.tolist()}")
print(f"graph_weight.grad: {graph_weight.grad.tolist()}")
print(f"same memory as kept: {graph_kept.data_ptr() == graph_weight.grad.data_ptr()}")
