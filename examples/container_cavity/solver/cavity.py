#!/usr/bin/env python3
"""A lid-driven cavity solver for the container_cavity example (standard library only).

Reads an OpenFOAM-style case in the current directory (constant/transportProperties: nu;
0/U: lid; system/controlDict: cells, endTime, sweeps), solves the 2-D incompressible
Navier-Stokes equations in vorticity-streamfunction form on the unit square (the top wall moves
at the lid speed, the others are at rest), and writes:
  log.cavity    one line per time step (time, step, Poisson residual), as a solver log would;
  fields.csv    x, y, psi, omega on the final grid;
  summary.json  the inputs, the Reynolds number and the final kinetic energy and enstrophy.
Exit 1 with a message when the case is missing or malformed, or the run blows up.

Numerics: first-order upwind advection and central diffusion, explicit in time with a step
that keeps both stable; the Poisson equation by SOR sweeps warm-started from the last step;
Thom's formula for the vorticity on the walls.
"""
import json
import math
import re
import sys


def read_dict(path):
    """`key value;` lines of an OpenFOAM-style file, `//` comments left out."""
    out = {}
    try:
        with open(path) as f:
            for n, line in enumerate(f, 1):
                line = line.split("//", 1)[0].strip()
                if not line:
                    continue
                m = re.match(r"^(\w+)\s+(.*?);$", line)
                if not m:
                    sys.exit(f"cavity: {path}:{n}: expected 'key value;', got '{line}'")
                out[m.group(1)] = m.group(2)
    except OSError as e:
        sys.exit(f"cavity: cannot read the case: {e}")
    return out


def number(d, key, path, cast=float):
    try:
        return cast(d[key])
    except KeyError:
        sys.exit(f"cavity: {path}: no '{key}'")
    except ValueError:
        sys.exit(f"cavity: {path}: '{key}' is not a number: {d[key]}")


def main():
    nu = number(read_dict("constant/transportProperties"), "nu", "constant/transportProperties")
    lid = read_dict("0/U").get("lid", "")
    m = re.match(r"^\(\s*(\S+)\s+\S+\s+\S+\s*\)$", lid)
    if not m:
        sys.exit(f"cavity: 0/U: 'lid' must be '(Ux Uy Uz)', got '{lid}'")
    try:
        U = float(m.group(1))
    except ValueError:
        sys.exit(f"cavity: 0/U: the lid speed is not a number: {m.group(1)}")
    ctl = read_dict("system/controlDict")
    n = number(ctl, "cells", "system/controlDict", int)
    end = number(ctl, "endTime", "system/controlDict")
    sweeps = number(ctl, "sweeps", "system/controlDict", int)
    if nu <= 0 or U <= 0 or n < 4 or end <= 0 or sweeps < 1:
        sys.exit(f"cavity: need nu > 0, a lid speed > 0, cells >= 4, endTime > 0, sweeps >= 1 "
                 f"(nu={nu}, lid={U}, cells={n}, endTime={end}, sweeps={sweeps})")

    h = 1.0 / n
    psi = [[0.0] * (n + 1) for _ in range(n + 1)]  # psi[i][j]: x = i h, y = j h
    w = [[0.0] * (n + 1) for _ in range(n + 1)]
    t, step, omega_sor = 0.0, 0, 1.5
    with open("log.cavity", "w") as log:
        while t < end - 1e-12:
            # Walls (Thom): the lid is j = n.
            for k in range(n + 1):
                w[k][0] = -2.0 * psi[k][1] / (h * h)
                w[k][n] = -2.0 * psi[k][n - 1] / (h * h) - 2.0 * U / h
                w[0][k] = -2.0 * psi[1][k] / (h * h)
                w[n][k] = -2.0 * psi[n - 1][k] / (h * h)
            # Velocities and a stable step.
            u = [[0.0] * (n + 1) for _ in range(n + 1)]
            v = [[0.0] * (n + 1) for _ in range(n + 1)]
            vmax = U
            for i in range(1, n):
                for j in range(1, n):
                    u[i][j] = (psi[i][j + 1] - psi[i][j - 1]) / (2 * h)
                    v[i][j] = -(psi[i + 1][j] - psi[i - 1][j]) / (2 * h)
                    vmax = max(vmax, abs(u[i][j]) + abs(v[i][j]))
            dt = min(0.8 / (4 * nu / (h * h) + vmax / h), end - t)
            new = [row[:] for row in w]
            for i in range(1, n):
                for j in range(1, n):
                    ui, vj = u[i][j], v[i][j]
                    wx = (w[i][j] - w[i - 1][j]) / h if ui > 0 else (w[i + 1][j] - w[i][j]) / h
                    wy = (w[i][j] - w[i][j - 1]) / h if vj > 0 else (w[i][j + 1] - w[i][j]) / h
                    lap = (w[i + 1][j] + w[i - 1][j] + w[i][j + 1] + w[i][j - 1] - 4 * w[i][j]) / (h * h)
                    new[i][j] = w[i][j] + dt * (-ui * wx - vj * wy + nu * lap)
            w = new
            # Poisson: lap psi = -omega.
            residual = 0.0
            for _ in range(sweeps):
                residual = 0.0
                for i in range(1, n):
                    for j in range(1, n):
                        target = 0.25 * (psi[i + 1][j] + psi[i - 1][j] + psi[i][j + 1] +
                                         psi[i][j - 1] + h * h * w[i][j])
                        change = omega_sor * (target - psi[i][j])
                        psi[i][j] += change
                        residual = max(residual, abs(change))
            t += dt
            step += 1
            if not all(math.isfinite(x) for row in w for x in row):
                sys.exit(f"cavity: the solution blew up at time {t:.4g} (step {step})")
            log.write(f"Time = {t:.6g}  step {step}  dt {dt:.4g}  psi residual {residual:.3e}\n")

    energy = enstrophy = 0.0
    for i in range(1, n):
        for j in range(1, n):
            ux = (psi[i][j + 1] - psi[i][j - 1]) / (2 * h)
            vy = -(psi[i + 1][j] - psi[i - 1][j]) / (2 * h)
            energy += 0.5 * (ux * ux + vy * vy) * h * h
            enstrophy += 0.5 * w[i][j] ** 2 * h * h
    with open("fields.csv", "w") as f:
        f.write("x,y,psi,omega\n")
        for i in range(n + 1):
            for j in range(n + 1):
                f.write(f"{i * h:.6g},{j * h:.6g},{psi[i][j]:.9g},{w[i][j]:.9g}\n")
    summary = {"lid_speed": U, "nu": nu, "reynolds": U / nu, "cells": n, "time": t, "steps": step,
               "kinetic_energy": energy, "enstrophy": enstrophy,
               "psi_min": min(min(row) for row in psi)}
    with open("summary.json", "w") as f:
        json.dump(summary, f, indent=1)
        f.write("\n")
    print(f"cavity: Re={U / nu:.4g} after {step} steps to t={t:.4g}: "
          f"energy {energy:.6g}, enstrophy {enstrophy:.6g}")


if __name__ == "__main__":
    main()
