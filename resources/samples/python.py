"""A tiny inventory tracker: enough Python to show how code turns into tokens."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class Item:
    """One line of stock: a name, how many we hold, and the price of each."""

    name: str
    quantity: int = 0
    unit_price: float = 0.0
    tags: list[str] = field(default_factory=list)

    @property
    def value(self) -> float:
        return self.quantity * self.unit_price


class Inventory:
    def __init__(self) -> None:
        self._items: dict[str, Item] = {}

    def add(self, name: str, quantity: int, unit_price: float) -> Item:
        if quantity < 0:
            raise ValueError(f"quantity must be >= 0, got {quantity}")
        item = self._items.setdefault(name, Item(name, 0, unit_price))
        item.quantity += quantity
        item.unit_price = unit_price
        return item

    def remove(self, name: str, quantity: int) -> None:
        item = self._items[name]
        if quantity > item.quantity:
            raise ValueError(f"only {item.quantity} x {name} left")
        item.quantity -= quantity

    def total_value(self) -> float:
        return round(sum(item.value for item in self._items.values()), 2)

    def low_stock(self, threshold: int = 5) -> list[str]:
        return sorted(name for name, item in self._items.items() if item.quantity < threshold)

    def save(self, path: Path) -> None:
        data = {name: vars(item) for name, item in self._items.items()}
        path.write_text(json.dumps(data, indent=2), encoding="utf-8")


if __name__ == "__main__":
    shop = Inventory()
    shop.add("pencil", 120, 0.35)
    shop.add("notebook", 14, 2.80)
    shop.add("eraser", 3, 0.50)
    shop.remove("pencil", 20)
    for name in shop.low_stock():
        print(f"reorder: {name}")
    print(f"total value: {shop.total_value():.2f}")
