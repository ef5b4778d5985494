import copy

import paddle

inputs = paddle.to_tensor([[1.0, 2.0, 3.0]])
decay = 0.5


def graph_nodes(tensor):
    """How many backward nodes the tensor's history holds (0: it has none)."""
    seen, todo = set(), [tensor.grad_fn]
    while todo:
        node = todo.pop()
        if node is not None and id(node) not in seen:
            seen.add(id(node))
            todo.extend(node.next_functions)
    return len(seen)


def train(update, steps=5):
    """A student pulled towards its EMA teacher; the EMA update written four ways."""
    paddle.seed(0)
    student = paddle.nn.Linear(3, 1)
    teacher = copy.deepcopy(student)  # the EMA copy
    for param in teacher.parameters():
        param.stop_gradient = True
    optimizer = paddle.optimizer.SGD(learning_rate=0.1, parameters=student.parameters())
    run = {"grads": [], "failed_at": None, "error": None, "nodes": []}
    for step in range(1, steps + 1):
        optimizer.clear_grad()
        prediction = student(inputs)
        if update == "teacher_no_grad":  # the teacher's forward under no_grad
            with paddle.no_grad():
                target = teacher(inputs)
        else:
            target = teacher(inputs)
        loss = ((prediction - target) ** 2).sum() + prediction.sum()
        try:
            loss.backward()
        except (RuntimeError, SystemError) as error:
            run["failed_at"] = step
            run["error"] = f"{type(error).__name__}: {str(error).split('. ')[0]}"
            break
        run["grads"].append([round(v, 4) for v in student.weight.grad.flatten().tolist()])
        optimizer.step()
        if update == "state_dict":  # from the values state_dict() returns
            pairs = zip(teacher.state_dict().values(), student.state_dict().values(), strict=True)
        else:
            pairs = zip(teacher.parameters(), student.parameters(), strict=True)
        if update == "no_grad":
            with paddle.no_grad():
                for ema, param in pairs:
                    ema.scale_(decay).add_(param * (1 - decay))
        else:  # "recorded", "teacher_no_grad", "state_dict": outside no_grad
            for ema, param in pairs:
                ema.scale_(decay).add_(param * (1 - decay))
        run["nodes"].append(graph_nodes(teacher.weight))
    run["needs_grad"] = not teacher.weight.stop_gradient
    return run


updates = ("no_grad", "recorded", "teacher_no_grad", "state_dict")
runs = {update: train(update) for update in updates}
for update, run in runs.items():
    print(f"{update}:")
    print(f"  second-step gradient {run['grads'][1]}, teacher needs gradients {run['needs_grad']}")
    print(f"  nodes in the teacher's history after each step: {run['nodes']}")
    if run["error"]:
        print(f"  backward failed at step {run['failed_at']}: {run['error']}")
