#!/usr/bin/env python3
"""Deadlock check of dataflow_potrf.cu's ticket map (v8), on the host.

Blocks take tickets in order; a block holds one of `slots` resident places
until it finishes, and it finishes once every tile it waits for has finished:
tile (i, j) waits for (i, k) and (j, k), k < j, and a tile below the diagonal
also for (j, j). The map with DF_AHEAD = a puts, for c = 0, 1, ...: the
diagonal tile (c, c), then the tiles below the diagonal of column c - a.
Prints every (T, a, slots) that deadlocks. Session 32: none with 132 slots
(the H200's one block per SM) for T <= 128 and a <= 32; with 16 slots it
deadlocks once a + 1 > 16, as the kernel's argument says (only diagonal
blocks wait for later tickets, at most a + 1 of them at a time).
Run: python3 experiments/dataflow/ticket_sim.py
"""


def tickets(T, ahead):
    order, c = [], 0
    while len(order) < T * (T + 1) // 2:
        if c < T:
            order.append((c, c))
        cj = c - ahead
        if cj >= 0:
            order.extend((i, cj) for i in range(cj + 1, T))
        c += 1
    return order


def waits_for(i, j):
    w = {(i, k) for k in range(j)} | {(j, k) for k in range(j)}
    if i != j:
        w.add((j, j))
    return w


def finishes(T, ahead, slots):
    order = tickets(T, ahead)
    assert len(set(order)) == T * (T + 1) // 2
    done, nxt, resident = set(), 0, []
    while nxt < len(order) and len(resident) < slots:
        resident.append(order[nxt])
        nxt += 1
    while resident:
        ready = [b for b in resident if waits_for(*b) <= done]
        if not ready:
            return False
        for b in ready:
            done.add(b)
            resident.remove(b)
            if nxt < len(order):
                resident.append(order[nxt])
                nxt += 1
    return True


if __name__ == "__main__":
    for T in (8, 16, 64, 128):
        for ahead in (0, 1, 2, 4, 8, 32):
            for slots in (132, 16):
                if not finishes(T, ahead, slots):
                    print(f"deadlock: T={T} ahead={ahead} slots={slots}")
    print("checked")
