"""The WebShop environment (Yao et al. 2022): a simulated shop served as a LATS
environment and as a website. See README.md in this package."""

from env_servers.webshop.domain import WebShopDomain

__all__ = ["WebShopDomain"]
