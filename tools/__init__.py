# SPDX-License-Identifier: BSD-3-Clause
"""The cudalabs instructor and grading tools, one package run in-tree from the repository root
as modules (`python3 -m tools.scoreboard --help`); its sub-packages are release/ (grading a
submission), classroom/ (the class tools) and ci/ (the repository's CI checks).
Python 3.11 or newer, standard library only (the workflow checks of the CI also use PyYAML)."""
