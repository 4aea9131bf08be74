"""Engine tests are plain Python: no database, no Django fixtures."""


def pytest_configure(config):
    # The root configuration registers it too; repeating it keeps this folder runnable alone.
    config.addinivalue_line("markers", "slow: long property runs, left out of the default run")
