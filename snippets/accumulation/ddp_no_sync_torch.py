from launch_torch import launch

reports = launch("ddp_worker_torch.py")
report = reports[0]  # rank 0's
for mode, result in report.items():
    print(f"{mode}: {result}")
