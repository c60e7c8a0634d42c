from tests.test_permission_matrix import any_matrix_world  # noqa: F401  (shared fixture)
