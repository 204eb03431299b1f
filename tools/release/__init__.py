# SPDX-License-Identifier: BSD-3-Clause
"""Grading a submission against a pinned course release (`python3 -m tools.release.autograde`),
its intake scan, lab points, reuse of unchanged labs and the instructor's regrade. The Classroom
50 autograder (classroom50/autograder.py) is not part of the package: it is copied out of the
repository and runs standalone."""
