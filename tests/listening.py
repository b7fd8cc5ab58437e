"""What a process tree listens on, read from /proc/net/tcp and tcp6 (Linux)."""

from __future__ import annotations

import ipaddress
import os
from pathlib import Path

LISTEN = "0A"


def descendants(pids: list[int]) -> set[int]:
    """Return these processes and every process below them."""
    parents: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            # The command name is in parentheses and may hold spaces: split after it.
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # gone meanwhile
        parents[int(stat.parent.name)] = int(fields[1])
    found = set(pids)
    while True:
        more = {pid for pid, parent in parents.items() if parent in found} - found
        if not more:
            return found
        found |= more


def _socket_inodes(pid: int) -> set[str]:
    inodes = set()
    try:
        for fd in os.listdir(f"/proc/{pid}/fd"):
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
            if target.startswith("socket:["):
                inodes.add(target[len("socket:[") : -1])
    except OSError:
        pass  # gone, or a descriptor closed meanwhile
    return inodes


def _address(hex_address: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
    raw = bytes.fromhex(hex_address)
    if len(raw) == 4:
        return ipaddress.IPv4Address(raw[::-1])
    # Four 32-bit words, each in host (little-endian) order.
    words = b"".join(raw[i : i + 4][::-1] for i in range(0, 16, 4))
    address = ipaddress.IPv6Address(words)
    return address.ipv4_mapped or address


def listening(pids: list[int]) -> list[tuple[str, int]]:
    """Return (address, port) of every TCP socket these process trees listen on."""
    inodes = set().union(*(_socket_inodes(pid) for pid in descendants(pids)))
    found = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            local, state, inode = fields[1], fields[3], fields[9]
            if state == LISTEN and inode in inodes:
                address, port = local.split(":")
                found.append((str(_address(address)), int(port, 16)))
    return found


def beyond_loopback(pids: list[int]) -> list[tuple[str, int]]:
    """Return the listening sockets of these process trees that other machines could reach."""
    return [(a, p) for a, p in listening(pids) if not ipaddress.ip_address(a).is_loopback]
