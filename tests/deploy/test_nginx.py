"""nginx accepts the balancer configuration, committed and generated alike."""

from __future__ import annotations

from pathlib import Path

from loadtest.balancer import check_nginx_conf, render_nginx_conf

COMMITTED = Path(__file__).resolve().parents[2] / "deploy" / "nginx.conf"


def test_the_committed_config_is_the_rendered_compose_config() -> None:
    assert COMMITTED.read_text() == render_nginx_conf(["replica-1:8000", "replica-2:8000"], "8080")


def test_nginx_accepts_the_config_run_unprivileged_from_a_prefix_dir(tmp_path: Path) -> None:
    conf = tmp_path / "nginx.conf"
    conf.write_text(render_nginx_conf(["127.0.0.1:18001", "127.0.0.1:18002"], "127.0.0.1:18000"))
    checked = check_nginx_conf(tmp_path, conf)
    assert checked.returncode == 0, checked.stderr
    assert "test is successful" in checked.stderr


def test_nginx_rejects_a_broken_config(tmp_path: Path) -> None:
    conf = tmp_path / "nginx.conf"
    conf.write_text(
        render_nginx_conf(["127.0.0.1:18001"], "127.0.0.1:18000").replace(
            "proxy_pass http://mcp_replicas;", "proxy_pass http://mcp_replicas", 1
        )
    )
    assert check_nginx_conf(tmp_path, conf).returncode != 0


def test_the_balancer_never_replays_a_request_a_replica_received() -> None:
    conf = render_nginx_conf(["a:1", "b:2"], "8080")
    assert "proxy_next_upstream error timeout;" in conf
    assert "non_idempotent" not in conf
    assert "ip_hash" not in conf and "sticky" not in conf


def test_the_balancer_passes_tile_gets_only_and_logs_no_tile_token() -> None:
    conf = render_nginx_conf(["a:1", "b:2"], "8080")
    tiles = conf.split("location /tiles/ {", 1)[1].split("location", 1)[0]
    assert "limit_except GET" in tiles and "proxy_pass http://mcp_replicas;" in tiles
    log_format = conf.split("log_format replay", 1)[1].split(";", 1)[0]
    assert "$uri" in log_format and "$request " not in log_format and "$args" not in log_format


def test_the_balancer_serves_the_resource_metadata_and_keeps_metrics_internal() -> None:
    conf = render_nginx_conf(["a:1", "b:2"], "8080")
    metadata = conf.split("location /.well-known/oauth-protected-resource {", 1)[1]
    metadata = metadata.split("location", 1)[0]
    assert "limit_except GET" in metadata and "proxy_pass http://mcp_replicas;" in metadata
    assert "/metrics" not in conf.replace("# /metrics", "")
    assert "location / {\n            return 404;" in conf
