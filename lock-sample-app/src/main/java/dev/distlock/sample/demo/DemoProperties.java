package dev.distlock.sample.demo;

import org.springframework.boot.context.properties.ConfigurationProperties;

/** The size of the demo's burst: every number bounds a loop. */
@ConfigurationProperties("sample.demo")
public class DemoProperties {

    /** Run the demo once the app is up, print the table and exit (the {@code demo} profile sets it). */
    private boolean enabled;

    /** Stock put on sale before each flash-sale run. */
    private int stock = 50;

    /** Purchase requests per flash-sale run. */
    private int purchases = 200;

    /** Buyers sending at the same time. */
    private int buyers = 16;

    /** Editors of one page sending at the same time. */
    private int editors = 4;

    /** Edits each editor sends. */
    private int editsPerEditor = 10;

    public boolean isEnabled() {
        return this.enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public int getStock() {
        return this.stock;
    }

    public void setStock(int stock) {
        this.stock = stock;
    }

    public int getPurchases() {
        return this.purchases;
    }

    public void setPurchases(int purchases) {
        this.purchases = purchases;
    }

    public int getBuyers() {
        return this.buyers;
    }

    public void setBuyers(int buyers) {
        this.buyers = buyers;
    }

    public int getEditors() {
        return this.editors;
    }

    public void setEditors(int editors) {
        this.editors = editors;
    }

    public int getEditsPerEditor() {
        return this.editsPerEditor;
    }

    public void setEditsPerEditor(int editsPerEditor) {
        this.editsPerEditor = editsPerEditor;
    }
}
