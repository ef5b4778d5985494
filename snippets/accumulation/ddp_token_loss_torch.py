from launch_torch import launch

reports = launch("ddp_token_loss_worker_torch.py")
same_on_all_ranks = all(report["grads"] == reports[0]["grads"] for report in reports)
errors = reports[0]["max_abs_error"]
print(f"items in the window, summed over processes: {reports[0]['global_count']:g}")
for name, error in errors.items():
    print(f"{name:44} max abs error to the full batch: {error:.3g}")
print("every process holds the same gradients:", same_on_all_ranks)
grads = reports[0]["grads"]
global_count_alone = [  # each element of the gradient, as a share of the right one
    wrong / right
    for wrong, right in zip(
        grads["sum / global count"], grads["sum / global count * world_size"], strict=True
    )
]
print("sum / global count, as a share of the right gradient:", global_count_alone)
