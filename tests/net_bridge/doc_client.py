#!/usr/bin/env python3
"""A link client written from docs/link-protocol.md and the .proto files alone, in another language
than the project's: if the document leaves out something a client needs, this client fails.

With --attacks it plays an attacker beside a victim, each from a socket of its own: the attacks of
the document's Threats table, each of which must change nothing and be counted.

It uses Python's standard library (hashlib's BLAKE2b and SHA-512, hmac, zlib's CRC-32, a hand-made
protobuf codec) and the `cryptography` package for X25519 only. It opens a session, asks for status,
defines a transform, checks exactly-once on a resent request, starts again as a program that
reuses its session, and prints one line per step; exit 0 when every step behaved as the document
says.

  doc_client.py --key KEYFILE --port PORT [--host 127.0.0.1] [--attacks --observer-key KEYFILE]
"""
import argparse
import hashlib
import hmac
import os
import socket
import struct
import sys
import time
import zlib

from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

# ---- protobuf, proto3 binary: varints (wire type 0), 64-bit (1), length-delimited (2) ----------


def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def field_varint(number, value):
    return varint(number << 3 | 0) + varint(value) if value else b""


def field_bytes(number, value):
    return varint(number << 3 | 2) + varint(len(value)) + value if value else b""


def decode(data):
    """{field number: [values]}: ints for varints and fixed64, bytes for length-delimited."""
    fields, i = {}, 0
    while i < len(data):
        key, i = read_varint(data, i)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, i = read_varint(data, i)
        elif wire == 1:
            value, i = data[i:i + 8], i + 8
        elif wire == 2:
            n, i = read_varint(data, i)
            value, i = data[i:i + n], i + n
        elif wire == 5:
            value, i = data[i:i + 4], i + 4
        else:
            raise ValueError("wire type %d" % wire)
        fields.setdefault(number, []).append(value)
    return fields


def read_varint(data, i):
    shift = value = 0
    while True:
        b = data[i]
        i += 1
        value |= (b & 0x7F) << shift
        if not b & 0x80:
            return value, i
        shift += 7


def one(fields, number, default=0):
    return fields.get(number, [default])[-1]


# ---- the document's building blocks -------------------------------------------------------------

FT_REG, FT_ACK, FT_SENDREQ, FT_HELLO, FT_CHALLENGE, FT_AUTH, FT_REFUSE = 2, 3, 4, 5, 6, 7, 8


def mac(key, message):
    return hmac.new(key, message, hashlib.sha512).digest()[:32]


def datagram(frame, key=None):
    head = b"\x02" + (b"\x01" if key else b"\x00") + frame
    return head + (mac(key, head) if key else struct.pack(">I", zlib.crc32(head) & 0xFFFFFFFF))


def open_datagram(d, key):
    """The LinkFrame's fields of a datagram whose trailer checks, else None."""
    if len(d) < 2 or d[0] != 2:
        return None
    if d[1] == 0:
        body, trailer = d[:-4], d[-4:]
        if struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF) != trailer:
            return None
    elif d[1] == 1:
        body, trailer = d[:-32], d[-32:]
        if key is None or not hmac.compare_digest(mac(key, body), trailer):
            return None
    else:
        return None
    return decode(body[2:])


def frame(type_, count=0, session=0, payload=b"", handshake=b""):
    return (field_varint(1, type_) + field_varint(2, count & 1) + field_varint(3, session) +
            field_bytes(4, payload) + field_varint(6, count) + field_bytes(7, handshake))


def load_key_file(path):
    keys = {}
    for line in open(path):
        line = line.strip()
        if line and not line.startswith("#"):
            name, value = line.split(":", 1)
            keys[name.strip()] = bytes.fromhex(value.strip())
    return keys


class Link:
    def __init__(self, key_file, host, port, client_session):
        k = load_key_file(key_file)
        self.secret, self.public, self.bridge = k["secret"], k["public"], k["bridge"]
        self.client_session = client_session
        self.to = (host, port)
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.settimeout(0.05)
        self.session = 0
        self.count = 0
        self.sent_request = False

    def exchange(self, d, accept, tries=200, refused=None):
        """Sends d until accept() takes an answer. A checksummed REFUSE (accept returns a Refusal)
        does not end the wait: only when the wait runs out with nothing else does refused() hear of it."""
        for _ in range(tries):
            self.sock.sendto(d, self.to)
            noted = None
            try:
                while True:
                    got = accept(self.sock.recvfrom(65535)[0])
                    if isinstance(got, Refusal):
                        noted = got
                    elif got is not None:
                        return got
            except socket.timeout:
                if noted is not None and refused is not None:
                    refused(noted)
                continue
        raise RuntimeError("no answer after %d tries" % tries)

    def handshake(self):
        nonce = os.urandom(24)
        hello = field_varint(1, 2) + field_bytes(2, self.public) + field_bytes(3, nonce)

        def challenge(d):
            f = open_datagram(d, None)
            if f is None:
                return None
            h = decode(one(f, 7, b""))
            if one(f, 1) == FT_REFUSE and one(h, 3, b"") == nonce:
                return Refusal(one(f, 8), one(f, 9, b"").decode())
            if one(f, 1) != FT_CHALLENGE or one(h, 3, b"") != nonce or one(h, 4, b"") != self.bridge:
                return None
            return h

        in_a_row = [0]

        def refused(r):
            # RF_UNKNOWN_KEY and RF_VERSION end the link after three waits in a row; the rest: HELLO again.
            if r.code in (1, 4):
                in_a_row[0] += 1
                if in_a_row[0] >= 3:
                    raise RuntimeError("refused: %s" % r.reason)

        h = self.exchange(datagram(frame(FT_HELLO, handshake=hello)), challenge, refused=refused)
        # Session keys: kx, then one key per direction from it and the handshake's nonces.
        shared = X25519PrivateKey.from_private_bytes(self.secret).exchange(X25519PublicKey.from_public_bytes(self.bridge))
        kx = hashlib.blake2b(shared + self.public + self.bridge, digest_size=64).digest()
        client_rx, client_tx = kx_split(kx)
        n = nonce + one(h, 5)
        self.c2b = mac(client_tx, b"rfms-link c2b" + n)
        self.b2c = mac(client_rx, b"rfms-link b2c" + n)
        auth = (field_varint(1, 2) + field_bytes(2, self.public) + field_bytes(3, nonce) + field_bytes(5, one(h, 5)) +
                field_varint(6, one(h, 6)) + field_varint(7, self.client_session) +
                field_varint(8, 0 if self.sent_request else 1))

        def opened(d):
            f = open_datagram(d, self.b2c)
            if f is None or one(f, 1) != FT_ACK or one(f, 6) != 1:
                return None
            return one(f, 3)

        self.session = self.exchange(datagram(frame(FT_AUTH, count=1, handshake=auth), self.c2b), opened)
        self.count = 1

    def send(self, type_, payload=b""):
        """The ACK's payload: one new frame, retransmitted until acknowledged."""
        if self.session == 0:
            self.handshake()
        self.count += 1
        count = self.count
        if type_ == FT_REG:
            self.sent_request = True

        def acked(d):
            f = open_datagram(d, self.b2c)
            if f is None:
                g = open_datagram(d, None)
                if g is not None and one(g, 1) == FT_REFUSE and one(g, 3) == self.session and one(g, 6) == count:
                    return Refusal(one(g, 8), one(g, 9, b"").decode())
                return None
            if one(f, 1) != FT_ACK or one(f, 3) != self.session or one(f, 6) != count:
                return None
            self.last_ack = d
            return one(f, 4, b"")

        def refused(r):
            raise SessionLost()

        self.last_datagram = datagram(frame(type_, count, self.session, payload), self.c2b)
        try:
            return self.exchange(self.last_datagram, acked, refused=refused)
        except SessionLost:
            self.session = 0
            return self.send(type_, payload)


class SessionLost(Exception):
    pass


class Refusal:
    """A checksummed REFUSE of what is in flight: its code and reason."""

    def __init__(self, code, reason):
        self.code = code
        self.reason = reason


def kx_split(h):
    """(client's receive key, client's transmit key) from BLAKE2b-512(q ‖ client_pk ‖ bridge_pk),
    as the document's building-blocks table gives them."""
    return h[:32], h[32:]


def transform_request(number, name, x):
    m = [1.0, 0.0, 0.0, x, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0]
    value = field_bytes(1, struct.pack("<12d", *m))  # Transform3x4: repeated double m = 1, packed
    define = field_bytes(1, name.encode()) + field_bytes(2, value)
    return field_varint(1, number) + field_bytes(2, define) + field_varint(8, number)


def reply(payload):
    f = decode(payload)
    return {"accepted": bool(one(f, 2)), "reason": one(f, 3, b"").decode(), "handled": one(f, 7),
            "applied_period": one(f, 8)}


def silent(sock, d, to, wait=0.3):
    """Sends d from sock; whatever comes back within `wait` seconds (None: nothing)."""
    sock.sendto(d, to)
    sock.settimeout(wait)
    try:
        return sock.recvfrom(65535)[0]
    except socket.timeout:
        return None


def counters(link):
    c = decode(one(decode(link.send(FT_SENDREQ)), 14, b""))
    names = {3: "retransmissions", 4: "duplicates", 6: "malformed", 10: "forged", 11: "refused", 12: "unknown_sessions"}
    return {name: one(c, number) for number, name in names.items()}


def attacks(a, check):
    to = (a.host, a.port)
    victim = Link(a.key, a.host, a.port, int.from_bytes(os.urandom(8), "big") | 1)
    before = counters(victim)
    r1 = reply(victim.send(FT_REG, transform_request(1, "victim", 0.1)))
    check("the victim's request 1", r1["accepted"], str(r1))
    attacker = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)

    # A recorded frame replayed from elsewhere: not applied again, and the replayer's address, which
    # the session has not proven, gets at most a RETRY (type 9) no larger than three times the copy.
    got = silent(attacker, victim.last_datagram, to)
    retry = got is not None and one(decode(got[2:-32]), 1) == 9 and len(got) <= 3 * len(victim.last_datagram)
    check("a replayed frame gets the replayer nothing new", got is None or retry)
    # A frame in the victim's name (its session and next count are in clear) under a made-up key.
    forged = frame(FT_REG, victim.count + 1, victim.session, transform_request(2, "victim", 9.9))
    check("a frame in the victim's name is dropped", silent(attacker, datagram(forged, os.urandom(32)), to) is None)
    # ... and with a count far ahead, which must not stall the victim.
    ahead = frame(FT_REG, (1 << 64) - 1, victim.session, transform_request(2, "victim", 9.9))
    check("a count of 2^64-1 in the victim's name is dropped", silent(attacker, datagram(ahead, os.urandom(32)), to) is None)
    r2 = reply(victim.send(FT_REG, transform_request(2, "victim", 0.2)))
    check("the victim's request 2 after them: applied, once", r2["accepted"] and r2["handled"] == 2, str(r2))

    # Frames of no session, of a session nobody holds, and of a type the version does not define.
    zero = silent(attacker, datagram(frame(FT_REG, 2, 0, transform_request(1, "x", 0.0)), os.urandom(32)), to)
    f = open_datagram(zero, None) if zero else None
    check("a frame of session 0 is dropped or refused", zero is None or (f is not None and one(f, 1) == FT_REFUSE))
    unknown = silent(attacker, datagram(frame(FT_SENDREQ, 2, 12345), os.urandom(32)), to)
    f = open_datagram(unknown, None) if unknown else None
    check("a frame of a session nobody holds is told RF_UNKNOWN_SESSION", f is not None and one(f, 1) == FT_REFUSE and
          one(f, 8) == 2)
    check("a frame of type 10 is dropped", silent(attacker, datagram(frame(10, 2, victim.session), os.urandom(32)), to) is None)

    # A key the bridge does not admit: refused at the HELLO.
    stranger = X25519PrivateKey.generate().public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    hello = field_varint(1, 2) + field_bytes(2, stranger) + field_bytes(3, os.urandom(24))
    got = silent(attacker, datagram(frame(FT_HELLO, handshake=hello)), to)
    f = open_datagram(got, None) if got else None
    check("a key the bridge does not admit is refused", f is not None and one(f, 8) == 1, one(f, 9, b"").decode() if f else "")

    # An admitted observer's key may look, not move.
    observer = Link(a.observer_key, a.host, a.port, int.from_bytes(os.urandom(8), "big") | 1)
    begin = field_varint(1, 1) + field_bytes(9, field_bytes(1, b"mine")) + field_varint(8, 1)
    r = reply(observer.send(FT_REG, begin))
    check("an observer cannot open a task", not r["accepted"] and "observer" in r["reason"], r["reason"])

    r3 = reply(victim.send(FT_REG, transform_request(3, "victim", 0.3)))
    check("the victim's request 3: applied", r3["accepted"] and r3["handled"] == 3, str(r3))
    after = counters(victim)
    grew = {k: after[k] - before[k] for k in after}
    check("the bridge counted each", grew["forged"] >= 2 and grew["duplicates"] >= 1 and grew["malformed"] >= 1 and
          grew["refused"] >= 1 and grew["unknown_sessions"] >= 1, str(grew))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--key", required=True)
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--attacks", action="store_true")
    p.add_argument("--observer-key")
    a = p.parse_args()
    ok = True

    def check(what, good, detail=""):
        nonlocal ok
        ok &= bool(good)
        print("%-4s %s %s" % ("ok" if good else "FAIL", what, detail), flush=True)

    if a.attacks:
        attacks(a, check)
        print("every attack was refused and counted" if ok else "an attack got through")
        return 0 if ok else 1

    session = int.from_bytes(os.urandom(8), "big") | 1
    link = Link(a.key, a.host, a.port, session)
    status = decode(link.send(FT_SENDREQ))
    dt_ms = struct.unpack("<d", one(status, 15, b"\0" * 8))[0]  # a double: 8 bytes, little-endian
    link_counters = decode(one(status, 14, b""))
    check("status", dt_ms > 0 and one(link_counters, 1) >= 2, "period %d, dt_ms %g, frames in %d" % (
        one(status, 1), dt_ms, one(link_counters, 1)))
    r1 = reply(link.send(FT_REG, transform_request(1, "outsider", 0.25)))
    check("request 1 applied", r1["accepted"] and r1["handled"] == 1, str(r1))
    again = reply(link.send(FT_REG, transform_request(1, "outsider", 0.25)))
    check("request 1 resent in a new frame: the first answer again", again == r1, str(again))
    skip = reply(link.send(FT_REG, transform_request(3, "outsider", 0.5)))
    check("request 3 before 2 refused", not skip["accepted"] and "skips ahead" in skip["reason"], str(skip))
    r2 = reply(link.send(FT_REG, transform_request(2, "outsider", 0.5)))
    check("request 2 applied", r2["accepted"] and r2["handled"] == 2, str(r2))
    zero = reply(link.send(FT_REG, transform_request(0, "outsider", 0.5)))
    check("request 0 refused", not zero["accepted"] and zero["handled"] == 0, str(zero))
    # The program starts again with the same session: fresh, counting from 1. (A moment later, so
    # that the controller's periods have moved on past r1's: an answer from the old session's
    # cache would carry r1's period.)
    time.sleep(0.05)
    restarted = Link(a.key, a.host, a.port, session)
    r = reply(restarted.send(FT_REG, transform_request(1, "outsider", 0.75)))
    # Several requests may be applied in one period, so it may share r2's.
    check("started again with its old session: request 1 applied anew", r["accepted"] and r["handled"] == 1 and
          r["applied_period"] >= r2["applied_period"] and r["applied_period"] > r1["applied_period"], str(r))
    print("the document was enough" if ok else "the document and the bridge disagree")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
