# SPDX-License-Identifier: BSD-3-Clause
"""The class tools (`python3 -m tools.classroom.collect`): student repositories, graded results
by push time, the gradebook and the charts."""
