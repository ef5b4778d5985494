import copy

import torch

inputs = torch.tensor([[1.0, 2.0, 3.0]])
decay = 0.5


def graph_nodes(tensor):
    """How many backward nodes the tensor's history holds (0: it has none)."""
    seen, todo = set(), [tensor.grad_fn]
    while todo:
        node = todo.pop()
        if node is not None and node not in seen:
            seen.add(node)
            todo.extend(next_node for next_node, _ in node.next_functions)
    return len(seen)


def train(update, steps=5):
    """A student pulled towards its EMA teacher; the EMA update written four ways."""
    torch.manual_seed(0)
    student = torch.nn.Linear(3, 1)
    teacher = copy.deepcopy(student).requires_grad_(False)  # the EMA copy
    optimizer = torch.optim.SGD(student.parameters(), lr=0.1)
    run = {"grads": [], "failed_at": None, "error": None, "nodes": []}
    for step in range(1, steps + 1):
        optimizer.zero_grad()
        prediction = student(inputs)
        if update == "teacher_no_grad":  # the teacher's forward under no_grad
            with torch.no_grad():
                target = teacher(inputs)
        else:
            target = teacher(inputs)
        loss = ((prediction - target) ** 2).sum() + prediction.sum()
        try:
            loss.backward()
        except RuntimeError as error:
            run["failed_at"] = step
            run["error"] = f"RuntimeError: {str(error).split('. ')[0]}"
            break
        run["grads"].append([round(v, 4) for v in student.weight.grad.flatten().tolist()])
        optimizer.step()
        if update == "state_dict":  # from the values state_dict() returns
            pairs = zip(teacher.state_dict().values(), student.state_dict().values(), strict=True)
        else:
            pairs = zip(teacher.parameters(), student.parameters(), strict=True)
        if update == "no_grad":
            with torch.no_grad():
                for ema, param in pairs:
                    ema.mul_(decay).add_(param, alpha=1 - decay)
        else:  # "recorded", "teacher_no_grad", "state_dict": outside no_grad
            for ema, param in pairs:
                ema.mul_(decay).add_(param, alpha=1 - decay)
        run["nodes"].append(graph_nodes(teacher.weight))
    run["requires_grad"] = teacher.weight.requires_grad
    return run


updates = ("no_grad", "recorded", "teacher_no_grad", "state_dict")
runs = {update: train(update) for update in updates}
for update, run in runs.items():
    print(f"{update}:")
    print(f"  second-step gradient {run['grads'][1]}, teacher requires_grad {run['requires_grad']}")
    print(f"  nodes in the teacher's history after each step: {run['nodes']}")
    if run["error"]:
        print(f"  backward failed at step {run['failed_at']}: {run['error']}")
