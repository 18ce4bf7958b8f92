"""The ground floor: imports nothing from parrot's other packages."""
