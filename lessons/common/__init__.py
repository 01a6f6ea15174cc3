"""What lessons share: the catalog, charts, exports, live training runs, links, pretrained models, exercises."""
