-- the baseline: made by games/benchmarks/capacity.py (pgbench_scripts) from games/services/play/play.py's
-- statements; `python manage.py bench_capacity --write-scripts deploy/capacity` writes it again.
SELECT 1;
