"""Fixtures of the use-case tests: the table layer on an in-memory unit of work (no SQL, no Telegram)."""

from __future__ import annotations

import random

import pytest
from table_fakes import Clock, FakeStore

from table import TableService


@pytest.fixture
def store() -> FakeStore:
    return FakeStore()


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def service(store: FakeStore, clock: Clock) -> TableService:
    return TableService(store.uow, clock=clock)


@pytest.fixture
def rng(request: pytest.FixtureRequest) -> random.Random:
    return random.Random(request.node.nodeid)
