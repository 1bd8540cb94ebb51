"""One projectile: launch speed V0 (m/s), angle (degrees), quadratic drag coefficient (1/m).
RK4 in steps of 1 ms until it lands; writes result.json with its range, flight time and peak
height (metres, seconds). Standard library only, a few milliseconds a sample."""
import argparse
import json
import math

p = argparse.ArgumentParser(description=__doc__)
p.add_argument("--v0", type=float, required=True)
p.add_argument("--angle", type=float, required=True)
p.add_argument("--drag", type=float, required=True)
p.add_argument("--out", default="result.json")
a = p.parse_args()

G, DT = 9.81, 1e-3


def deriv(s):
    x, y, vx, vy = s
    v = math.hypot(vx, vy)
    return (vx, vy, -a.drag * v * vx, -G - a.drag * v * vy)


rad = math.radians(a.angle)
s = (0.0, 0.0, a.v0 * math.cos(rad), a.v0 * math.sin(rad))
t, peak = 0.0, 0.0
while True:
    k1 = deriv(s)
    k2 = deriv(tuple(si + DT / 2 * ki for si, ki in zip(s, k1)))
    k3 = deriv(tuple(si + DT / 2 * ki for si, ki in zip(s, k2)))
    k4 = deriv(tuple(si + DT * ki for si, ki in zip(s, k3)))
    n = tuple(si + DT / 6 * (a1 + 2 * a2 + 2 * a3 + a4) for si, a1, a2, a3, a4 in zip(s, k1, k2, k3, k4))
    t += DT
    peak = max(peak, n[1])
    if n[1] < 0:  # landed during this step: interpolate the crossing
        f = s[1] / (s[1] - n[1])
        json.dump({"range": s[0] + f * (n[0] - s[0]), "flight_time": t - DT + f * DT,
                   "max_height": peak}, open(a.out, "w"))
        break
    s = n
