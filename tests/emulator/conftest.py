from emulator.pytest_fixtures import emulated_bot, emulator

__all__ = ["emulated_bot", "emulator"]
