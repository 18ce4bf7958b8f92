"""How big and how slow is the HTML report of a large run?

Makes a synthetic run of N items from a real one: its dataset's items and its outcome records
repeated under new ids (``ID~k``), with the dataset copied beside them so the page carries every
source SQL. Repeated records compress better than as many distinct ones would, so the size is a
lower bound; the uncompressed size of the records is printed too. Prints the page's size, the
time to write it, and, where Chromium and Selenium are installed, the time until the page has
unpacked its items and drawn the first page of the table.

    python -m parrot.eval --model sqlglot --output-dir runs/sqlglot
    python scripts/bench/html_size.py runs/sqlglot [--items 50000]
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
import time
from pathlib import Path

from parrot.api.results import MANIFEST, read_json, scan_results
from parrot.datasets import load_dataset
from parrot.report.html import write_run_report


def synthetic(run_dir: Path, n: int, out: Path) -> tuple[dict, list[dict]]:
    manifest = read_json(run_dir / MANIFEST)
    source = Path(manifest["dataset"]["path"])
    records, _ = scan_results(run_dir)
    by_id = {json.loads(line)["id"]: line for line in source.read_text().splitlines() if line}
    (out / "dataset").mkdir(parents=True)
    if (source.parent / "fixtures").is_dir():
        shutil.copytree(source.parent / "fixtures", out / "dataset" / "fixtures")
    items, recs = [], []
    for k in range(n):
        r = records[k % len(records)]
        new_id = f"{r['id']}~{k // len(records)}"
        items.append(json.dumps({**json.loads(by_id[r["id"]]), "id": new_id}))
        recs.append({**r, "id": new_id})
    (out / "dataset" / "items.jsonl").write_text("\n".join(items) + "\n")
    dataset = load_dataset(str(out / "dataset" / "items.jsonl"), count_tokens=False)
    manifest["dataset"] = {
        **manifest["dataset"],
        "path": str(dataset.path),
        "sha256": dataset.sha256,
        "items": n,
    }
    return manifest, recs


def browser_seconds(page: Path) -> float | None:
    try:
        from selenium import webdriver
        from selenium.webdriver.support.ui import WebDriverWait
    except ImportError:
        return None
    if shutil.which("chromedriver") is None:
        return None
    options = webdriver.ChromeOptions()
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"):
        options.add_argument(arg)
    from selenium.webdriver.chrome.service import Service

    driver = webdriver.Chrome(options=options, service=Service(shutil.which("chromedriver")))
    try:
        start = time.perf_counter()
        driver.get(page.resolve().as_uri())
        WebDriverWait(driver, 300).until(
            lambda d: d.execute_script("return document.body.dataset.ready === 'true'")
        )
        return time.perf_counter() - start
    finally:
        driver.quit()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run_dir", type=Path)
    parser.add_argument("--items", type=int, default=50_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        manifest, recs = synthetic(args.run_dir, args.items, out)
        start = time.perf_counter()
        page = write_run_report(out, manifest, recs)
        written = time.perf_counter() - start
        size = page.stat().st_size
        raw = sum(len(json.dumps(r, ensure_ascii=False)) for r in recs)
        print(
            f"{args.items} items: report.html {size / 1e6:.1f} MB "
            f"({size / args.items:.0f} bytes/item; the records alone are {raw / 1e6:.1f} MB "
            f"of JSON before compression), written in {written:.1f} s"
        )
        seconds = browser_seconds(page)
        if seconds is not None:
            print(
                f"headless Chromium: items unpacked and first table page drawn in {seconds:.1f} s"
            )


if __name__ == "__main__":
    main()
