#!/usr/bin/env python3
"""Writes the hand-made seeds of fuzz/corpus: well-formed inputs of every kind a harness
takes, so that a fuzzing run starts from deep inside the parsers instead of finding each field by
chance. Run it again after a change of proto/link.proto or proto/task.proto:

  fuzz/corpus/make_seeds.py
"""
import os
import struct
import zlib

here = os.path.dirname(os.path.abspath(__file__))


def varint(n):
    out = bytearray()
    while True:
        out.append((n & 0x7F) | (0x80 if n > 0x7F else 0))
        n >>= 7
        if not n:
            return bytes(out)


def u(number, value):  # a varint field
    return varint(number << 3) + varint(value)


def b(number, value):  # a length-delimited field
    if isinstance(value, str):
        value = value.encode()
    return varint(number << 3 | 2) + varint(len(value)) + value


def d(number, value):  # a double field
    return varint(number << 3 | 1) + struct.pack("<d", value)


def transform(x, y, z):
    return b(1, struct.pack("<12d", 1, 0, 0, x, 0, 1, 0, y, 0, 0, 1, z))


# TaskRequest: id 1, transform 2, position 3, motion 4, move 5, control 6, session 7, number 8,
# begin 9, end 10, role 12.
def request(number, body_field, body):
    return u(1, number) + b(body_field, body) + u(7, 0x1234) + u(8, number) + u(12, 2)


task = [
    request(1, 9, b(1, "seed")),
    request(2, 6, u(1, 1)),                                                  # calibrate
    request(3, 2, b(1, "z") + b(2, transform(0.0, 0.0, 0.2))),
    request(4, 2, b(1, "conv") + b(2, transform(0.3, -0.1, 0.0))),
    request(5, 3, b(1, "p") + b(2, "z") + b(2, "T6") + b(3, "conv") + b(5, u(1, 1) + u(2, 1))),
    request(6, 4, b(1, "slow") + d(2, 2.0) + d(3, 0.5) + u(4, 1) + u(5, 4)),
    request(7, 5, b(1, "p") + b(2, "slow")),
    request(8, 6, u(1, 4) + u(2, 3) + u(3, 1)),                              # jog joint 3 +
    request(9, 6, u(1, 5)),                                                  # stop
    request(10, 10, b""),
]


def crc_datagram(frame):
    head = b"\x02\x00" + frame
    return head + struct.pack(">I", zlib.crc32(head) & 0xFFFFFFFF)


handshake = u(1, 2) + b(2, bytes(range(32))) + b(3, bytes(24)) + b(4, bytes(range(32, 64))) + b(5, bytes(32)) + \
    u(6, 1_790_000_000_000) + u(7, 99) + u(8, 1)
frames = {
    # LinkFrame: type 1, seq 2, session 3, payload 4, count 6, handshake 7, refuse 8, reason 9
    "hello.datagram": crc_datagram(u(1, 5) + b(7, u(1, 2) + b(2, bytes(range(32))) + b(3, bytes(24)))),
    "refuse.datagram": crc_datagram(u(1, 8) + u(3, 7) + u(6, 3) + u(2, 1) + u(8, 2) + b(9, "no such session")),
    "auth.frame": u(1, 7) + u(2, 1) + u(6, 1) + b(7, handshake),
    "challenge.frame": u(1, 6) + b(7, handshake),
    "reg.frame": u(1, 2) + u(2, 0) + u(3, 0) + b(4, task[2]) + u(6, 2),
    "sendreq.frame": u(1, 4) + u(2, 1) + u(6, 3),
    "ack.frame": u(1, 3) + u(2, 0) + u(3, 5) + u(6, 2) + b(4, u(2, 1) + u(7, 1)),
}

os.makedirs(os.path.join(here, "link_frame"), exist_ok=True)
for name, data in frames.items():
    with open(os.path.join(here, "link_frame", name), "wb") as f:
        f.write(data)
os.makedirs(os.path.join(here, "task_request"), exist_ok=True)
# The task harness takes requests each after its length in one byte.
with open(os.path.join(here, "task_request", "a-whole-task.requests"), "wb") as f:
    for r in task:
        assert len(r) < 256
        f.write(bytes([len(r)]) + r)
for i, r in enumerate(task, 1):
    with open(os.path.join(here, "task_request", "request-%02d.requests" % i), "wb") as f:
        f.write(bytes([len(r)]) + r)

# A node key list, every node with a key of its own (the loaders harness).
os.makedirs(os.path.join(here, "loaders"), exist_ok=True)
with open(os.path.join(here, "loaders", "node-keys.textproto"), "w") as f:
    for i, name in enumerate(["arm", "math"] + ["joint%d" % j for j in range(1, 7)] + ["supervisor", "bridge"]):
        f.write('node { name: "%s" public_key: "%s" }\n' % (name, ("%02x" % (i + 1)) * 32))
