#!/usr/bin/env python3
"""Recomputes `storesim populate --answer-key` independently, twice, and requires equality.

Usage: answer_key_check.py STORESIM_BINARY [CUSTOMERS] [MONTHS]

A session is populated (Premium.storekit, every rate raised so that each kind of event
happens) with an answer key. The key is then computed again here, from what a team's pipeline
sees and by the definitions of docs/populations.md, not by storesim's code:
  1. from the transactions: `storesim transactions --json --customer cK` for each customer;
  2. from the notifications: `storesim notifications --json --decoded`, each notification's
     transactionInfo (the newest copy of each transaction wins: a REFUND carries the revocation).
Only PURCHASED transactions count. Both must equal the key, row by row. A shard's key plus the
other shards' must equal the whole run's. Standard library only.
"""
import bisect
import csv
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
from datetime import datetime, timezone

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.abspath(sys.argv[1])
CUSTOMERS = int(sys.argv[2]) if len(sys.argv) > 2 else 60
MONTHS = int(sys.argv[3]) if len(sys.argv) > 3 else 8
MONTH_MS = 2_629_746_000  # the mean Gregorian month, over which MRR spreads a price
OPTIONS = ["--seed", "11", "--family", "20", "--ask-to-buy", "10", "--refund", "8", "--plan-change", "8",
           "--billing-failure", "15", "--promotional", "30"]
COLUMNS = ["activeAtEnd", "purchases", "renewals", "refunds", "grossRevenue", "refundedRevenue", "mrr", "churned"]


def storesim(folder, *args):
    done = subprocess.run([BIN, *args], cwd=folder, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"storesim {' '.join(args)} failed ({done.returncode}): {done.stderr}")
    return done.stdout


def populated(folder, *extra):
    shutil.copy(os.path.join(ROOT, "Configurations", "Premium.storekit"), folder)
    storesim(folder, "init", "Premium.storekit", "--start", "2026-01-01T00:00:00Z", "--environment", "Sandbox")
    storesim(folder, "populate", "--customers", str(CUSTOMERS), "--months", str(MONTHS), *OPTIONS, *extra,
             "--answer-key", "key.csv")
    with open(os.path.join(folder, "key.csv"), newline="") as f:
        return list(csv.DictReader(f))


def month_starts(key):
    """The first millisecond of each month of the key, and of the month after."""
    months = sorted({row["month"] for row in key})
    starts = []
    for label in months:
        y, m = int(label[:4]), int(label[5:7])
        starts.append(int(datetime(y, m, 1, tzinfo=timezone.utc).timestamp() * 1000))
    y, m = int(months[-1][:4]), int(months[-1][5:7])
    y, m = (y + 1, 1) if m == 12 else (y, m + 1)
    starts.append(int(datetime(y, m, 1, tzinfo=timezone.utc).timestamp() * 1000))
    return months, starts


def compute(transactions, key):
    """The key's columns from PURCHASED transaction payloads, by docs/populations.md."""
    months, starts = month_starts(key)
    rows = {(row["month"], row["productId"]): dict.fromkeys(COLUMNS, 0) for row in key}

    def month_of(ms):
        if ms is None or ms < starts[0] or ms >= starts[-1]:
            return None
        return months[bisect.bisect_right(starts, ms) - 1]

    def add(month, product, column, amount=1):
        if (month, product) not in rows:
            sys.exit(f"a transaction of {product} in {month} has no row in the key")
        rows[(month, product)][column] += amount

    in_force = {}  # originalTransactionId -> month index -> (purchaseDate, transactionId, product, mrr)
    for t in transactions:
        if t.get("inAppOwnershipType") != "PURCHASED":
            continue
        product, price, purchase = t["productId"], t.get("price", 0), t["purchaseDate"]
        revoked = t.get("revocationDate")
        m = month_of(purchase)
        if m:
            add(m, product, "renewals" if t.get("transactionReason") == "RENEWAL" else "purchases")
            add(m, product, "grossRevenue", price)
        m = month_of(revoked)
        if m:
            add(m, product, "refunds")
            add(m, product, "refundedRevenue", price)
        expires = t.get("expiresDate")
        if t.get("type") != "Auto-Renewable Subscription" or expires is None or expires <= purchase:
            continue
        slots = in_force.setdefault(t["originalTransactionId"], {})
        mine = (purchase, int(t["transactionId"]), product, price * MONTH_MS // (expires - purchase))
        for i in range(len(months)):
            end = starts[i + 1] - 1
            if purchase <= end < expires and not (revoked is not None and revoked <= end):
                if i not in slots or slots[i][:2] < mine[:2]:
                    slots[i] = mine
    for slots in in_force.values():
        for i, month in enumerate(months):
            if i in slots:
                add(month, slots[i][2], "activeAtEnd")
                add(month, slots[i][2], "mrr", slots[i][3])
            elif i > 0 and (i - 1) in slots:
                add(month, slots[i - 1][2], "churned")
    return rows


def as_numbers(key):
    return {(row["month"], row["productId"]): {c: int(row[c]) for c in COLUMNS} for row in key}


def compare(what, computed, key):
    wanted = as_numbers(key)
    wrong = [(k, computed[k], wanted[k]) for k in wanted if computed[k] != wanted[k]]
    for k, got, want in wrong[:10]:
        print(f"FAIL {what}: {k}: recomputed {got}, key {want}")
    if wrong:
        sys.exit(f"{len(wrong)} rows of the answer key differ from the recomputation {what}")
    print(f"ok   the answer key ({len(wanted)} rows) equals its recomputation {what}")


def main():
    with tempfile.TemporaryDirectory() as folder:
        key = populated(folder)
        if sum(int(r["refunds"]) for r in key) == 0 or sum(int(r["churned"]) for r in key) == 0:
            sys.exit("the population has no refunds or no churn: the check would prove little")
        transactions = []
        for n in range(1, CUSTOMERS + 1):
            transactions += json.loads(storesim(folder, "transactions", "--json", "--customer", f"c{n}"))
        compare("from the transactions", compute(transactions, key), key)
        latest = {}
        for notification in json.loads(storesim(folder, "notifications", "--json", "--decoded")):
            info = notification.get("data", {}).get("transactionInfo")
            if info:
                latest[info["transactionId"]] = info
        compare("from the notifications", compute(list(latest.values()), key), key)
        whole = as_numbers(key)
    total = {k: dict.fromkeys(COLUMNS, 0) for k in whole}
    for k in (1, 2, 3):
        with tempfile.TemporaryDirectory() as folder:
            for row_key, row in as_numbers(populated(folder, "--shard", f"{k}/3")).items():
                for c in COLUMNS:
                    total[row_key][c] += row[c]
    if total != whole:
        sys.exit("the answer keys of shards 1/3, 2/3 and 3/3 do not add up to the whole run's")
    print("ok   the answer keys of three shards add up to the whole run's")


main()
