from tests.test_permission_matrix import _matrix_world_once, any_matrix_world  # noqa: F401  (shared fixtures)
