"""The Arcade frontend: views that render a headless ``Game`` and turn input into actions."""
