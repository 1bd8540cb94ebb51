"""A stand-in for PyPI's Faker (not packaged by Debian): deterministic first names."""


class Faker:
    _NAMES = ["James", "John", "Robert", "Michael", "William", "David", "Richard", "Joseph"]

    def __init__(self):
        self._n = 0

    def first_name_male(self):
        self._n += 1
        return self._NAMES[(self._n - 1) % len(self._NAMES)]
