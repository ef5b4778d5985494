from launch_paddle import launch

reports = launch("ddp_worker_paddle.py")
report = reports[0]  # rank 0's
for mode, result in report.items():
    print(f"{mode}: {result}")
