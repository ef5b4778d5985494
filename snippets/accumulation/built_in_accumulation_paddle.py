from launch_paddle import launch

reports = launch("built_in_accumulation_worker_paddle.py")
for rank, report in enumerate(reports):
    print(f"rank {rank}: {report}")
