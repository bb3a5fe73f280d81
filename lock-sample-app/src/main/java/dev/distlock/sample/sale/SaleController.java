package dev.distlock.sample.sale;

import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

import dev.distlock.sample.sale.StockStore.StockLevel;

/**
 * {@code POST /sales/{sku}/purchase?quantity=1} buys under the lock; {@code /purchase-unlocked} does the same without
 * it. A sold-out SKU answers 409, an unknown SKU 404, a bad quantity 400; none of them changes the stock.
 */
@RestController
@RequestMapping("/sales")
public class SaleController {

    private final SaleService locked;

    private final UnlockedSaleService unlocked;

    private final StockStore store;

    private final SaleProperties properties;

    public SaleController(SaleService locked, UnlockedSaleService unlocked, StockStore store,
            SaleProperties properties) {
        this.locked = locked;
        this.unlocked = unlocked;
        this.store = store;
        this.properties = properties;
    }

    @GetMapping("/{sku}")
    public StockLevel level(@PathVariable String sku) {
        return this.store.level(knownSku(sku));
    }

    @PostMapping("/{sku}/purchase")
    public StockLevel purchase(@PathVariable String sku, @RequestParam(defaultValue = "1") int quantity) {
        return sold(sku, this.locked.purchase(knownSku(sku), checkedQuantity(quantity)));
    }

    @PostMapping("/{sku}/purchase-unlocked")
    public StockLevel purchaseUnlocked(@PathVariable String sku, @RequestParam(defaultValue = "1") int quantity) {
        return sold(sku, this.unlocked.purchase(knownSku(sku), checkedQuantity(quantity)));
    }

    /** Restocks a known SKU, for running the demo again. */
    @PostMapping("/{sku}/restock")
    public StockLevel restock(@PathVariable String sku, @RequestParam int stock) {
        if (stock < 0 || stock > 1_000_000) {
            throw new ResponseStatusException(HttpStatus.BAD_REQUEST, "stock must be between 0 and 1000000");
        }
        this.store.reset(knownSku(sku), stock);
        return this.store.level(sku);
    }

    private StockLevel sold(String sku, boolean sold) {
        if (!sold) {
            throw new ResponseStatusException(HttpStatus.CONFLICT, "'" + sku + "' is sold out");
        }
        return this.store.level(sku);
    }

    private String knownSku(String sku) {
        if (!this.properties.getStock().containsKey(sku) || !this.store.exists(sku)) {
            throw new ResponseStatusException(HttpStatus.NOT_FOUND, "Unknown SKU '" + sku + "'; known: "
                    + this.properties.getStock().keySet());
        }
        return sku;
    }

    private int checkedQuantity(int quantity) {
        if (quantity < 1 || quantity > this.properties.getMaxQuantity()) {
            throw new ResponseStatusException(HttpStatus.BAD_REQUEST,
                    "quantity must be between 1 and " + this.properties.getMaxQuantity() + ", but was " + quantity);
        }
        return quantity;
    }
}
