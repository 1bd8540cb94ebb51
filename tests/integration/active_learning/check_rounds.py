"""The example's pure pieces, as specifications: the loop's stopping rule (rounds.decide) and
the acquisition (acquire.propose). Prints one 'ok ...' line per check; exits 1 on the first
that fails.

    check_rounds.py EXAMPLE_DIR
"""
import sys

import numpy as np

sys.path.insert(0, sys.argv[1])
import acquire  # noqa: E402
import rounds  # noqa: E402
import space  # noqa: E402


def check(what, ok):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        sys.exit(1)


# decide(error, target, samples, k, budget, iteration, max_iterations)
check("the target reached stops the loop, whatever the budget",
      rounds.decide(0.1, 0.12, 40, 10, 150, 3, 20) == "target")
check("the target is inclusive", rounds.decide(0.12, 0.12, 40, 10, 150, 3, 20) == "target")
check("another K past the budget stops it", rounds.decide(0.5, 0.12, 145, 10, 150, 3, 20) == "budget")
check("another K exactly at the budget goes on", rounds.decide(0.5, 0.12, 140, 10, 150, 3, 20) == "again")
check("the loop's last iteration stops it", rounds.decide(0.5, 0.12, 40, 10, 150, 20, 20) == "max_iterations")
check("otherwise again", rounds.decide(0.5, 0.12, 40, 10, 150, 3, 20) == "again")

# propose: highest std first, then kept apart from the chosen and from the data
cand = np.array([[0.5, 0.5], [0.505, 0.5], [0.1, 0.1], [0.9, 0.9]])
std = np.array([1.0, 0.99, 0.2, 0.1])
check("the highest std first", acquire.propose(cand, std, 1)[0] == 0)
check("a near-duplicate of a chosen point is passed over",
      list(acquire.propose(cand, std, 2)) == [0, 2])
check("a point on the data, and one next to it, are passed over",
      acquire.propose(cand, std, 1, taken=np.array([[0.5, 0.5]]))[0] == 2)
check("k distinct indices, k capped by the candidates",
      sorted(acquire.propose(cand, std, 10)) == [0, 1, 2, 3])
check("deterministic", list(acquire.propose(cand, std, 3)) == list(acquire.propose(cand, std, 3)))

# space: the unit square and back, and a Latin hypercube has one point per stratum
u = space.lhs(50, 3)
check("an LHS has one point in each of n strata per dimension",
      all(sorted((u[:, j] * 50).astype(int)) == list(range(50)) for j in range(2)))
omega, zeta = space.from_unit(u)
check("to_unit inverts from_unit", np.allclose(space.to_unit(omega, zeta), u))
check("ZETA spans its range on a log scale", np.isclose(space.from_unit(np.array([[0, 0.5]]))[1][0],
                                                        np.sqrt(space.ZETA[0] * space.ZETA[1])))
