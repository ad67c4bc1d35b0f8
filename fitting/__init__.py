"""Pure, CPU-bound fitting of widget app data under a character budget."""
